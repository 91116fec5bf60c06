#!/usr/bin/env bash
# Parquet and the services: a table's items without a mapping get their key attributes as columns,
# typed by DescribeTable's key schema (dynalite); Parquet files written to and read from s3://
# (s3rver).
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
duck() { # OUT SQL...: each query's rows as JSON lines
    local out=$1
    shift
    node "$root/tests/scripts/duck-rows.js" "$@" >"$out" 2>&1 ||
        { fail "DuckDB: $*"; cat "$out" >&2; }
}

# ---- a table (partition key S, sort key N): its key columns from DescribeTable
ddb_call CreateTable '{"TableName":"keyed","BillingMode":"PAY_PER_REQUEST",
  "AttributeDefinitions":[{"AttributeName":"user","AttributeType":"S"},{"AttributeName":"at","AttributeType":"N"}],
  "KeySchema":[{"AttributeName":"user","KeyType":"HASH"},{"AttributeName":"at","KeyType":"RANGE"}]}' >/dev/null
for _ in $(seq 1 100); do [ "$(table_status keyed)" = ACTIVE ] && break; sleep 0.1; done
node -e 'for (let i = 0; i < 25; i++) console.log(JSON.stringify({ Item: { user: { S: `u${i % 4}` },
  at: { N: i % 5 ? String(1700000000 + i) : `123456789012345678901234567890123456${10 + i}` },
  note: { S: `n${i}` } } }))' >"$tmp/keyed.json"
sum=$(node -e 'let s = 0n; for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean))
  s += BigInt(JSON.parse(l).Item.at.N); console.log(String(s))' "$tmp/keyed.json")
run import 0 "$bin" import "$tmp/keyed.json" --table keyed "${E[@]}" --quiet
run export 0 "$bin" export --table keyed --format parquet --out "$tmp/keyed" "${E[@]}" --quiet
f="$tmp/keyed/items.parquet"
duck "$tmp/keyed.duck" "SELECT column_name || ':' || column_type AS c FROM (DESCRIBE SELECT * FROM read_parquet('$f'))" \
    "SELECT count(*) n, CAST(sum(\"at\") AS VARCHAR) s, count(DISTINCT \"user\") u FROM read_parquet('$f')"
for want in '{"c":"user:VARCHAR"}' '{"c":"at:DECIMAL(38,0)"}' '{"c":"item:JSON"}' \
    "{\"n\":\"25\",\"s\":\"$sum\",\"u\":\"4\"}"; do
    grep -qxF -- "$want" "$tmp/keyed.duck" || fail "DuckDB: no '$want' in: $(cat "$tmp/keyed.duck")"
done
run back 0 "$bin" export "$f" --format ddb-json --out "$tmp/keyed-back" --quiet
same_items keyed "$tmp/keyed.json" -- "$tmp/keyed-back/items.json"
# --key names other attributes: the table's types for its keys, the first item's for the rest
run export-key 0 "$bin" export --table keyed --format parquet --key note,at --out "$tmp/keyed2" \
    "${E[@]}" --quiet
duck "$tmp/keyed2.duck" "SELECT column_name || ':' || column_type AS c FROM (DESCRIBE SELECT * FROM read_parquet('$tmp/keyed2/items.parquet'))"
for want in '{"c":"note:VARCHAR"}' '{"c":"at:DECIMAL(38,0)"}' '{"c":"item:JSON"}'; do
    grep -qxF -- "$want" "$tmp/keyed2.duck" || fail "DuckDB: no '$want' in: $(cat "$tmp/keyed2.duck")"
done

# ---- Parquet read from s3:// (written there by export): the object copied to a temporary file
# first, gone afterwards; the same items as the local file gives; a folder of them too
start_s3 data
run to-s3 0 "$bin" export --table keyed --format parquet --out s3://data/pq/ "${E[@]}" --quiet
mkdir -p "$tmp/spool"
run from-s3 0 env TMPDIR="$tmp/spool" "$bin" export s3://data/pq/items.parquet --format ddb-json \
    --out "$tmp/from-s3" --quiet
same_items from-s3 "$tmp/keyed.json" -- "$tmp/from-s3/items.json"
run encode-s3 0 env TMPDIR="$tmp/spool" "$bin" export s3://data/pq/ --format ddb-json \
    --out "$tmp/from-s3-dir" --quiet
same_items from-s3-dir "$tmp/keyed.json" -- "$tmp/from-s3-dir/items.json"
[ -z "$(ls -A "$tmp/spool")" ] || fail "temporary files left behind: $(ls "$tmp/spool")"

exit $((failures > 0))
