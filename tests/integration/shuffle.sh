#!/usr/bin/env bash
# Write order: an input sorted by partition key sends every batch to one partition at a time.
# The fault server plays a table of 8 partitions (ranges of a hash of the partition key), each
# taking 400 WCU/s and answering the rest of a batch with UnprocessedItems (the whole batch with
# ProvisionedThroughputExceededException) as DynamoDB does. The same sorted input is imported
# with --no-shuffle and with the default shuffle window: both write every item, and the shuffled
# run has far fewer items throttled (counted by the server, not timed: the machine is shared).
. "$(dirname "$0")/lib.bash"

node "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --port-file "$tmp/fport" \
    --seed 3 --owner-pid $$ --quiet >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fs="http://127.0.0.1:$(cat "$tmp/fport")"
control() { curl -s -XPOST "$fs/__control" -d "$1" >/dev/null; }
stat_of() { curl -s "$fs/__stats" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const o=JSON.parse(s);console.log(($1)||0)})"; }

# 12 users x 200 items, in key order (as a Scan export or one user's CSV comes)
awk 'BEGIN { for (u = 0; u < 12; u++) for (i = 0; i < 200; i++)
    printf "{\"Item\":{\"pk\":{\"S\":\"user%02d\"},\"sk\":{\"N\":\"%d\"},\"v\":{\"S\":\"%064d\"}}}\n", u, i, i }' \
    >"$tmp/sorted.json"
n=2400

throttled_import() { # NAME ARGS...: imports into a fresh table NAME; prints the items throttled
    local name=$1
    shift
    ddb_call CreateTable "{\"TableName\":\"$name\",\"BillingMode\":\"PAY_PER_REQUEST\",
        \"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"},
            {\"AttributeName\":\"sk\",\"AttributeType\":\"N\"}],
        \"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},
            {\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}]}" >/dev/null
    control '{"resetStats":true,"rules":[{"kind":"partitions","key":"pk","partitions":8,"wcu":400,"burst":0.1}]}'
    run "$name" 0 "$bin" import "$tmp/sorted.json" --input-format ddb-json --table "$name" \
        --endpoint-url "$fs" --max-attempts 100 --max-wcu 1000 --summary "$tmp/$name.json" "$@"
    [ "$(summary_total "$tmp/$name.json" written)" = "$n" ] || fail "$name: $n written expected"
    run "$name-dump" 0 "$bin" export --table "$name" --format ddb-json --out "$tmp/$name-dump" \
        --endpoint-url "$endpoint"
    same_items "$name" "$tmp/sorted.json" -- "$tmp/$name-dump/items.json"
    stat_of o.partitions.throttledItems >"$tmp/$name.throttled"
}

throttled_import inorder --no-shuffle
throttled_import shuffled
a=$(cat "$tmp/inorder.throttled") b=$(cat "$tmp/shuffled.throttled")
echo "items throttled: $a in input order, $b shuffled"
[ "$a" -gt 0 ] || fail "the sorted input was never throttled: the test shows nothing"
[ $((b * 3)) -lt "$a" ] || fail "shuffled: $b items throttled, not under a third of $a"
finish
