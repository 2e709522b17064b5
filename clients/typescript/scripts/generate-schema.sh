#!/bin/sh
# Regenerates src/schema.d.ts from the OpenAPI document of the Engram in this checkout
# (create_app().openapi(), no server started). Run from clients/typescript: npm run generate.
set -eu
root="$(cd ../.. && pwd)"
python="${ENGRAM_PYTHON:-$root/.venv/bin/python}"
document="$(mktemp --suffix=.json)"
trap 'rm -f "$document"' EXIT
(cd "$root" && PYTHONPATH="$root" "$python" -m scripts.openapi_document) > "$document"
npx --no-install openapi-typescript "$document" --default-non-nullable false --output src/schema.d.ts
