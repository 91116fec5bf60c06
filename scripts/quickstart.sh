#!/usr/bin/env bash
# Quick start: install what is missing, build ddbpipe, and export the bundled favorites sample
# (an AWS Export-to-S3 folder) into one CSV file per entity.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target ddbpipe >/dev/null
out=${1:-out/favorites}
rm -rf "$out"
echo "+ build/ddbpipe export samples/favorites/export --mapping formats/favorites.json --format csv --out $out"
set +e
build/ddbpipe export samples/favorites/export --mapping formats/favorites.json --format csv \
    --out "$out" --max-rejects 100
code=$?
set -e
echo
echo "Per-entity CSV files are in $out/ (rejected records: $out/_ddbpipe/rejects.ndjson," \
     "items no entity matched: $out/_ddbpipe/unmatched.ndjson)."
exit $code
