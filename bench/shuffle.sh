#!/usr/bin/env bash
# What the write shuffle gains on a table throttled per partition: `ddbpipe import` of an input
# sorted by partition key (USERS users, ITEMS items each, one after the other, as a Scan export or
# one user's CSV comes) with --no-shuffle and with the default shuffle window, in paired rounds.
#
#   bench/shuffle.sh [USERS [ITEMS]]     default 24 users x 1000 items
#
# The table is dynalite behind tests/fault-server/fault-server.js playing 8 partitions (ranges
# of a hash of the partition key) of WCU (default 400) write units a second each, the rest of a
# batch answered in UnprocessedItems as DynamoDB does; both imports run at --max-wcu MAX_WCU
# (default 2000), what a table of that capacity would be given. Each of ROUNDS rounds (default
# 3) runs both, in alternating order; it prints each run's wall time and items throttled, and the
# medians. Builds a Release ddbpipe in build-bench/ (BUILD_DIR overrides).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
out="$root/bench/out/shuffle"
users="${1:-24}"
items="${2:-1000}"
rounds="${ROUNDS:-3}"
wcu="${WCU:-400}"
max_wcu="${MAX_WCU:-2000}"

. "$root/bench/lib.bash"
build_release ddbpipe
mkdir -p "$out"
export AWS_ACCESS_KEY_ID=AKIDEXAMPLETESTONLY AWS_SECRET_ACCESS_KEY=test-secret-not-real
export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true

url=$(DYNALITE_OWNER_PID=$$ "$root/scripts/dynalite.sh" start "$out/dynalite")
node "$root/tests/fault-server/fault-server.js" --upstream "$url" --port-file "$out/fport" \
	--owner-pid $$ --quiet >"$out/fault.log" 2>&1 &
fault_pid=$!
trap 'kill $fault_pid 2>/dev/null; "$root/scripts/dynalite.sh" stop "$out/dynalite" >/dev/null' EXIT
rm -f "$out/fport"
for _ in $(seq 1 100); do [ -s "$out/fport" ] && break; sleep 0.1; done
fs="http://127.0.0.1:$(cat "$out/fport")"

input="$out/sorted-$users-$items.json"
awk -v users="$users" -v items="$items" 'BEGIN { for (u = 0; u < users; u++)
	for (i = 0; i < items; i++)
		printf "{\"Item\":{\"pk\":{\"S\":\"user%04d\"},\"sk\":{\"N\":\"%d\"},\"v\":{\"S\":\"%0200d\"}}}\n", u, i, i }' \
	>"$input"

# one NAME FLAGS...: a fresh table, one import; appends "wall throttled" to $out/NAME.rows
n=0
one() {
	local name=$1 t0 t1 thr
	shift
	n=$((n + 1))
	curl -s -XPOST "$fs/__control" -d '{"resetStats":true,"rules":[{"kind":"partitions","key":"pk","partitions":8,"wcu":'"$wcu"'}]}' >/dev/null
	curl -s -H 'Content-Type: application/x-amz-json-1.0' \
		-H 'X-Amz-Target: DynamoDB_20120810.CreateTable' -H 'X-Amz-Date: 20240101T000000Z' \
		-H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETESTONLY/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000' \
		--data '{"TableName":"bench'"$n"'","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}' \
		"$url/" >/dev/null
	t0=$(date +%s%N)
	"$build/ddbpipe" import "$input" --input-format ddb-json --table "bench$n" --endpoint-url "$fs" \
		--max-wcu "$max_wcu" --max-attempts 100 --quiet "$@" >/dev/null 2>"$out/$name.log"
	t1=$(date +%s%N)
	thr=$(curl -s "$fs/__stats" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).partitions.throttledItems))")
	awk -v a="$t0" -v b="$t1" -v t="$thr" 'BEGIN { printf "%.2f %d\n", (b - a) / 1e9, t }' >>"$out/$name.rows"
	printf '  %-10s %8.2f s %8d items throttled\n' "$name" "$(tail -n 1 "$out/$name.rows" | cut -d' ' -f1)" "$thr"
}

rm -f "$out"/*.rows
echo "== $users users x $items items in key order; 8 partitions of $wcu WCU/s; --max-wcu $max_wcu"
for r in $(seq "$rounds"); do
	echo "round $r"
	if [ $((r % 2)) = 1 ]; then one in-order --no-shuffle; one shuffled; else one shuffled; one in-order --no-shuffle; fi
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "== medians of $rounds rounds"
for name in in-order shuffled; do
	printf '  %-10s %8.2f s %8d items throttled\n' "$name" "$(cut -d' ' -f1 "$out/$name.rows" | median)" \
		"$(cut -d' ' -f2 "$out/$name.rows" | median)"
done
