#!/usr/bin/env bash
# The benchmark's inputs and stand-in are what bench/run.sh says they are: ddbpipe-gen bench --rich
# gives valid items whose undeclared attributes reach _extra exactly (a 30-digit number, a list of
# BOOL/NULL/B, a string set, binary, 38-digit numbers); repeat-export copies the real AWS export
# in its own layout (manifests that check, every key distinct, every item read); ddbpipe-sink
# --scan serves every item of its table once across the segments of a parallel Scan.
. "$(dirname "$0")/lib.bash"
gen="$tools/ddbpipe-gen"
sink="$tools/ddbpipe-sink"
M="$root/formats/favorites.json"
real="$root/../shared/testdata/aws-export/01716790307109-5f9d6aaa"
cd "$tmp" || exit 1
export AWS_ACCESS_KEY_ID=AKIDEXAMPLETESTONLY AWS_SECRET_ACCESS_KEY=test-secret-not-real
export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null

# -- rich items ----------------------------------------------------------------------------------
"$gen" bench --mapping "$M" --items 3000 --rich --out rich.json.gz >/dev/null || fail "gen --rich"
n=$(gzip -dc rich.json.gz | wc -l)
[ "$n" -ge 3000 ] || fail "gen --rich wrote $n lines"
for a in '"meta":{"M":{"score":{"N":"[1-9][0-9]{29}"},"flags":{"L":\[' '"labels":{"SS":\[' \
    '"checksum":{"B":"' '"balance":{"N":"[1-9][0-9]{19}\.[0-9]{17}[1-9]"}' \
    '"sequence":{"N":"[1-9][0-9]{36}[1-9]"}'; do
    [ "$(gzip -dc rich.json.gz | grep -cE "$a")" = "$n" ] || fail "not every rich item has $a"
done
gzip -dc rich.json.gz | grep -qE '"flags":\{"L":\[[^]]*\{"BOOL":' || fail "no BOOL in a flags list"
gzip -dc rich.json.gz | grep -qE '"flags":\{"L":\[[^]]*\{"NULL":true' || fail "no NULL in flags"
gzip -dc rich.json.gz | grep -qE '"flags":\{"L":\[[^]]*\{"B":' || fail "no B in a flags list"
"$gen" bench --mapping "$M" --items 3000 --out lean.json.gz >/dev/null || fail "gen lean"
gzip -dc lean.json.gz | grep -q '"meta"' && fail "lean items carry the rich attributes"
"$bin" export rich.json.gz --mapping "$M" --format ndjson --out rich-out 2>rich.err ||
    fail "export of rich items: $(cat rich.err)"
grep -q ", 0 rejected, 0 unmatched" rich.err || fail "rich items rejected: $(grep rejected rich.err)"
# the 30-digit score of the first item, as generated and in _extra
score=$(gzip -dc rich.json.gz | head -1 | grep -oE '"score":\{"N":"[0-9]+' | grep -oE '[0-9]+$')
grep -rqF "\"score\":{\"N\":\"$score\"}" rich-out/*.ndjson || fail "score $score is not in _extra exactly"

# -- the real export, repeated ---------------------------------------------------------------------
if [ -d "$real" ]; then
    "$gen" repeat-export --from "$real" --key name --copies 2 --out rep >rep.out ||
        fail "repeat-export: $(cat rep.out)"
    dir=rep/AWSDynamoDB/01716790307109-5f9d6aaa
    for f in _started manifest-summary.json manifest-summary.md5 manifest-files.json \
        manifest-files.md5; do
        [ -f "$dir/$f" ] || fail "$dir/$f is missing"
    done
    b64md5() { openssl dgst -md5 -binary <"$1" | base64 -w0; }
    [ "$(b64md5 "$dir/manifest-files.json")" = "$(cat "$dir/manifest-files.md5")" ] ||
        fail "manifest-files.md5 does not match"
    total=$(grep -o '"itemCount":[0-9]*' "$dir/manifest-files.json" | cut -d: -f2 |
        awk '{t += $1} END {print t}')
    [ "$total" = 266398 ] || fail "manifest-files counts $total items, not 2 x 133199"
    grep -q '"itemCount": 266398' "$dir/manifest-summary.json" || fail "summary's itemCount"
    grep -q '"billedSizeBytes": 89141462' "$dir/manifest-summary.json" || fail "summary's billed size"
    while read -r line; do
        key=$(echo "$line" | grep -oE 'data/[a-z0-9]+\.json\.gz')
        want=$(echo "$line" | grep -oE '"md5Checksum":"[^"]*' | cut -d'"' -f4)
        got=$(b64md5 "$dir/$key")
        [ "$got" = "$want" ] || fail "$key: MD5 $got, the manifest says $want"
    done <"$dir/manifest-files.json"
    dups=$(gzip -dc "$dir"/data/*.json.gz | grep -oE '^\{"Item":\{"name":\{"S":"[^"]*"' | sort |
        uniq -d | head -3)
    [ -z "$dups" ] || fail "repeated keys: $dups"
    "$bin" export rep --format ndjson --out rep-out 2>rep.err || fail "export: $(cat rep.err)"
    grep -q "266398 read, 266398 written, 0 rejected" rep.err || fail "read back: $(cat rep.err)"
    grep -qi "warning" rep.err && fail "warnings reading the copy: $(grep -i warning rep.err)"
fi

# -- Scan served by the sink -------------------------------------------------------------------------
gzip -dc lean.json.gz | head -2500 >table.json
"$sink" --scan table.json sink.port &
pid=$!
trap 'kill $pid 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do [ -s sink.port ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat sink.port)"
"$bin" export --table bench --endpoint-url "$url" --segments 3 --format ndjson --out scan-out \
    2>scan.err || fail "export --table: $(cat scan.err)"
"$bin" export table.json --format ndjson --out file-out 2>file.err || fail "export file"
cmp -s <(sort scan-out/items.ndjson) <(sort file-out/items.ndjson) ||
    fail "the Scan's items are not the table's: $(sort scan-out/items.ndjson | wc -l) lines"
scanned=$(curl -fsS -X POST -H 'x-amz-target: DynamoDB_20120810.Stats' --data '{}' "$url" |
    grep -oE '"scanned":[0-9]+' | cut -d: -f2)
[ "$scanned" = 2500 ] || fail "the sink served $scanned items"
# pages of at most Limit items, each but the last with a LastEvaluatedKey
page=$(curl -fsS -X POST -H 'x-amz-target: DynamoDB_20120810.Scan' \
    --data '{"TableName":"bench","Segment":1,"TotalSegments":2,"Limit":7}' "$url")
[ "$(echo "$page" | grep -o '"Count":[0-9]*')" = '"Count":7' ] || fail "Limit 7: ${page:0:200}"
echo "$page" | grep -q '"LastEvaluatedKey":{"pk":{"S":"scan"},"sk":{"S":"1257"}}' ||
    fail "segment 1 of 2 goes on at item 1257: ${page: -200}"
finish
