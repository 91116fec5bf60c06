#!/usr/bin/env bash
# The NDJSON load script is exact in DuckDB (npm @duckdb/node-api): an export holding 38-digit
# integers and fractions, numbers no DECIMAL(38,s) holds (1E+125, -1E-130), number sets, and
# strings and maps that look like numbers loads with every number equal to the item's, and
# sum() over the 38-digit column is exact. No server: the export reads a file.
set -u
bin=$1
root=${DDB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
here="$root/tests/integration/duckdb"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddbpipe-duckdb.XXXXXX")
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
[ -d "$root/node_modules/@duckdb/node-api" ] || { echo "@duckdb/node-api is not installed" >&2; exit 1; }

"$bin" export "$here/readings.items.json" --mapping "$here/readings.json" --format ndjson \
    --out "$tmp/out" --quiet || { echo "FAIL: export" >&2; exit 1; }
node "$here/load-exact.js" "$tmp/out" "$here/readings.items.json" || {
    echo "FAIL: the NDJSON load script is not exact in DuckDB" >&2
    sed -n '1,200p' "$tmp/out/_ddbpipe/schema/load.duckdb.sql" >&2
    exit 1
}
# The same export gzipped: DuckDB reads Reading.ndjson.gz through the same script.
"$bin" export "$here/readings.items.json" --mapping "$here/readings.json" --format ndjson --gzip \
    --out "$tmp/gz" --quiet || { echo "FAIL: export --gzip" >&2; exit 1; }
node "$here/load-exact.js" "$tmp/gz" "$here/readings.items.json" || {
    echo "FAIL: the gzipped NDJSON load is not exact" >&2
    exit 1
}
echo "duckdb_exact: ok"
