#!/bin/sh
# Regenerates src/schema.d.ts (or the file named as $1) from the OpenAPI document of the Engram
# in this checkout: create_app().openapi(), no server started. From clients/typescript:
# `npm run generate`. ENGRAM_PYTHON names the interpreter (default: the checkout's .venv).
set -eu
output="${1:-src/schema.d.ts}"
root="$(cd ../.. && pwd)"
python="${ENGRAM_PYTHON:-$root/.venv/bin/python}"
document="$(mktemp "${TMPDIR:-/tmp}/engram-openapi.XXXXXX")"
trap 'rm -f "$document"' EXIT
(cd "$root" && PYTHONPATH="$root" "$python" -m scripts.openapi_document) > "$document"
# --default-non-nullable false: a field with a default stays optional in a request's type.
node_modules/.bin/openapi-typescript "$document" --default-non-nullable false --output "$output"
