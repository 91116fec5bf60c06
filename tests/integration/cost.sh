#!/usr/bin/env bash
# The cost before the run: --dry-run's estimate of write and read units (DynamoDB's item size
# rules; 1 KB writes, 4 KB Scan reads; each GSI's and LSI's writes by its projection) against
# what AWS's DynamoDB Local reports consumed (ReturnConsumedCapacity) in the real run, within
# 5%: an import of items of varied sizes (over 1 KB, numbers, sets, maps, lists, binary) into a
# table with an ALL and a KEYS_ONLY GSI and an INCLUDE LSI, some items without index keys; and a
# migrate into a table --create-table makes from a mapping with GSIs and LSIs; a sync; an export
# (its Scan estimated from DescribeTable, nothing read). The dry runs
# write nothing. Also the price table: the built-in one, --prices FILE, a region it lacks.
. "$(dirname "$0")/lib.bash"

start_dynamodb_local
E=(--endpoint-url "$ddbl")
local_call() {
    curl -s --max-time 10 -H 'Content-Type: application/x-amz-json-1.0' \
        -H "X-Amz-Target: DynamoDB_20120810.$1" -H 'X-Amz-Date: 20240101T000000Z' \
        -H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETESTONLY/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000' \
        --data "$2" "$ddbl/"
}
# json_at FILE EXPR: a value of a JSON file (o is the document)
json_at() { node -e "const o=JSON.parse(require('fs').readFileSync('$1','utf8'));console.log($2)"; }
# within5 NAME ESTIMATE CONSUMED
within5() {
    node -e "const e=+process.argv[1],c=+process.argv[2];process.exit(c>0&&Math.abs(e-c)<=0.05*c?0:1)" \
        "$2" "$3" || fail "$1: estimate $2, consumed $3: not within 5%"
    echo "$1: estimate $2, consumed $3"
}
item_count() { local_call Scan "{\"TableName\":\"$1\",\"Select\":\"COUNT\"}" | sed -n 's/.*"Count":\([0-9]*\).*/\1/p'; }

# -- import: varied items, GSIs and an LSI ----------------------------------------------------
local_call CreateTable '{"TableName":"varied","BillingMode":"PAY_PER_REQUEST",
  "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},
    {"AttributeName":"g","AttributeType":"S"},{"AttributeName":"l","AttributeType":"N"}],
  "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
  "GlobalSecondaryIndexes":[
    {"IndexName":"all","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}},
    {"IndexName":"keys","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
     "Projection":{"ProjectionType":"KEYS_ONLY"}}],
  "LocalSecondaryIndexes":[{"IndexName":"byl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},
    {"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["big","tags"]}}]}' \
    >"$tmp/create.out"
grep -q '"TableStatus"' "$tmp/create.out" || fail "create varied: $(cat "$tmp/create.out")"
node -e '
const out = []
for (let i = 0; i < 400; i++) {
  const it = { pk: { S: "u" + (i % 17) }, sk: { S: "s" + i } }
  if (i % 3 === 0) it.g = { S: "grp" + (i % 5) }
  if (i % 4 === 0) it.l = { N: String(i * 1234.5678) }
  const n = (i * 37) % 2600
  if (n > 0) it.big = { S: "x".repeat(n) }
  if (i % 5 === 0) it.tags = { SS: ["a" + i, "b" + i, "c"] }
  if (i % 6 === 0) it.m = { M: { a: { N: "12345678901234567890" }, b: { L: [{ S: "q" }, { BOOL: true }, { NULL: true }] }, c: { NS: ["1", "2.5", "-3e10"] } } }
  if (i % 7 === 0) it.bin = { B: Buffer.from("y".repeat(i % 500)).toString("base64") }
  out.push(JSON.stringify({ Item: it }))
}
process.stdout.write(out.join("\n") + "\n")' >"$tmp/varied.json"

run import-dry 0 "$bin" import "$tmp/varied.json" --input-format ddb-json --table varied "${E[@]}" \
    --dry-run --max-wcu 100 --summary "$tmp/import-dry.json"
[ "$(item_count varied)" = 0 ] || fail "import-dry: the dry run wrote items"
expect_in "$tmp/import-dry.err" "its 3 indexes"
expect_in "$tmp/import-dry.err" "at --max-wcu 100/s"
expect_in "$tmp/import-dry.err" "on-demand in us-east-1: reads \$0.0000 + writes \$0.00"
[ "$(json_at "$tmp/import-dry.json" o.estimate.index_wcu)" -gt 0 ] || fail "import-dry: no index units"
run import 0 "$bin" import "$tmp/varied.json" --input-format ddb-json --table varied "${E[@]}" \
    --summary "$tmp/import.json"
[ "$(item_count varied)" = 400 ] || fail "import: 400 items expected"
within5 import-wcu "$(json_at "$tmp/import-dry.json" o.estimate.wcu)" \
    "$(json_at "$tmp/import.json" o.consumed.wcu)"

# -- migrate: a Scan's reads, and the writes into a table --create-table makes ----------------
fav="$root/formats/favorites.json" fav2="$root/formats/favorites-v2.json"
run create-fav 0 "$bin" create-table --mapping "$fav" --table favsrc "${E[@]}"
"$tools/ddbpipe-gen" export --mapping "$fav" --items 600 --unmatched 0 --invalid 0 --files 1 \
    --seed 5 --out "$tmp/gen" >/dev/null || fail "generator"
run fill 0 "$bin" import "$tmp"/gen/AWSDynamoDB/* --table favsrc "${E[@]}"
M=(--table favsrc --mapping "$fav" --to-table favdst --to-mapping "$fav2" --create-table "${E[@]}")
run migrate-dry 0 "$bin" migrate "${M[@]}" --dry-run --max-rcu 50 --summary "$tmp/migrate-dry.json"
[ "$(local_call DescribeTable '{"TableName":"favdst"}' | grep -c ResourceNotFound)" = 1 ] ||
    fail "migrate-dry: the dry run made the table"
expect_in "$tmp/migrate-dry.err" "its planned 4 indexes"
expect_in "$tmp/migrate-dry.err" "at --max-rcu 50/s"
expect_in "$tmp/migrate-dry.err" "updated about every 6 hours"
run migrate 0 "$bin" migrate "${M[@]}" --summary "$tmp/migrate.json"
within5 migrate-wcu "$(json_at "$tmp/migrate-dry.json" o.estimate.wcu)" \
    "$(json_at "$tmp/migrate.json" o.consumed.wcu)"
within5 migrate-rcu "$(json_at "$tmp/migrate-dry.json" o.estimate.rcu)" \
    "$(json_at "$tmp/migrate.json" o.consumed.rcu)"

# -- export --table --dry-run: DescribeTable's sizes (DynamoDB Local keeps them current) --------
run export-dry 0 "$bin" export --table favsrc --mapping "$fav" --dry-run --out "$tmp/exd" \
    --summary "$tmp/export-dry.json" "${E[@]}"
[ ! -e "$tmp/exd" ] || fail "export-dry: the dry run wrote files"
expect_in "$tmp/export-dry.err" "(dry run, nothing read)"
run export 0 "$bin" export --table favsrc --mapping "$fav" --out "$tmp/ex" \
    --summary "$tmp/export.json" "${E[@]}"
within5 export-rcu "$(json_at "$tmp/export-dry.json" o.estimate.rcu)" \
    "$(json_at "$tmp/export.json" o.consumed.rcu)"
run export-files 2 "$bin" export "$tmp/varied.json" --dry-run --out "$tmp/exf"

# -- sync: the differences it would write -----------------------------------------------------
run create-sync 0 "$bin" create-table --mapping "$fav2" --table favsync "${E[@]}"
S=(--table favsrc --mapping "$fav" --to-table favsync --to-mapping "$fav2" "${E[@]}")
run sync-dry 1 "$bin" sync "${S[@]}" --dry-run --out "$tmp/sd" --summary "$tmp/sync-dry.json"
[ "$(item_count favsync)" = 0 ] || fail "sync-dry: the dry run wrote items"
expect_in "$tmp/sync-dry.err" "its 4 indexes"
run sync 0 "$bin" sync "${S[@]}" --out "$tmp/s" --summary "$tmp/sync.json"
within5 sync-wcu "$(json_at "$tmp/sync-dry.json" o.estimate.wcu)" \
    "$(json_at "$tmp/sync.json" o.sync.capacity_units)"

# -- the price table: another file, and a region it lacks -------------------------------------
cat >"$tmp/prices.json" <<'JSON'
{"as_of": "2030-01-01", "regions": {"us-east-1": {"write_per_million": 1000000,
  "read_per_million": 0, "export_per_gb": 1, "import_per_gb": 2}}}
JSON
run prices 0 "$bin" import "$tmp/varied.json" --input-format ddb-json --table varied "${E[@]}" \
    --dry-run --prices "$tmp/prices.json" --summary "$tmp/prices-sum.json"
wcu=$(json_at "$tmp/prices-sum.json" o.estimate.wcu)
expect_in "$tmp/prices.err" "= \$$wcu.0000 (prices of 2030-01-01, $tmp/prices.json)"
run region 0 "$bin" import "$tmp/varied.json" --input-format ddb-json --table varied "${E[@]}" \
    --dry-run --region eu-north-9
expect_in "$tmp/region.err" "no prices for region eu-north-9 in the built-in table"
echo '{"regions": {"us-east-1": {"write_per_million": "x"}}}' >"$tmp/bad-prices.json"
run bad-prices 2 "$bin" import "$tmp/varied.json" --input-format ddb-json --table varied "${E[@]}" \
    --dry-run --prices "$tmp/bad-prices.json"
expect_in "$tmp/bad-prices.err" "regions.us-east-1.write_per_million is not a price"
finish
