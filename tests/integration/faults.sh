#!/usr/bin/env bash
# Imports and scans through the fault-injecting server in front of dynalite: throttling,
# partial UnprocessedItems, 500/503, connections dropped before and during responses, slow
# answers, bad CRCs and validation errors. Every run must end with every item written exactly
# once (puts are idempotent, so a write that happened before a dropped response is fine) and
# the counts right; what cannot be written is rejected with the last error, never lost.
. "$(dirname "$0")/lib.bash"
gen="$tools/ddbpipe-gen"
fav="$root/formats/favorites.json"

node "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --port-file "$tmp/fport" \
    --seed 7 --owner-pid $$ --quiet >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fs="http://127.0.0.1:$(cat "$tmp/fport")"
F=(--endpoint-url "$fs")
D=(--endpoint-url "$endpoint")
control() { curl -s -XPOST "$fs/__control" -d "$1" >/dev/null; }
stat_of() { curl -s "$fs/__stats" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const o=JSON.parse(s);console.log(($1)||0)})"; }

# data: 3000 favorites items (no unmatched or invalid lines)
"$gen" export --mapping "$fav" --items 3000 --unmatched 0 --invalid 0 --files 3 --seed 11 \
    --out "$tmp/data" >/dev/null || fail "generator"
exp=$(ls -d "$tmp"/data/AWSDynamoDB/*)
run expected 0 "$bin" export "$exp" --format ddb-json --out "$tmp/expected"
n=$(wc -l <"$tmp/expected/items.json")

# -- a storm of every transient fault: all items written, exactly the input ------------------
run create 0 "$bin" create-table --mapping "$fav" --table storm "${D[@]}"
control '{"resetStats":true,"rules":[
  {"kind":"throttle","op":"BatchWriteItem","probability":0.15},
  {"kind":"unprocessed","op":"BatchWriteItem","itemProbability":0.3,"probability":0.5},
  {"kind":"http500","op":"BatchWriteItem","probability":0.04,"forward":true},
  {"kind":"http503","op":"BatchWriteItem","probability":0.04},
  {"kind":"drop","op":"BatchWriteItem","when":"mid","probability":0.03},
  {"kind":"drop","op":"BatchWriteItem","when":"before","forward":true,"probability":0.03},
  {"kind":"badcrc","op":"BatchWriteItem","probability":0.04},
  {"kind":"slow","op":"BatchWriteItem","ms":150,"probability":0.03}]}'
run storm 0 "$bin" import "$exp" --table storm "${F[@]}" --concurrency 8 --max-attempts 20 \
    --summary "$tmp/storm.json"
[ "$(summary_total "$tmp/storm.json" written)" = "$n" ] || fail "storm: $n written expected"
[ "$(summary_total "$tmp/storm.json" rejected)" = 0 ] || fail "storm: nothing rejected expected"
for k in throttle unprocessed http500 http503 drop badcrc slow; do
    [ "$(stat_of "o.faults.$k")" -gt 0 ] || fail "storm: no $k fault was injected"
done
grep -q "items retried as unprocessed" "$tmp/storm.err" || fail "storm: writer stats missing"
run storm-dump 0 "$bin" export --table storm --format ddb-json --out "$tmp/storm-dump" "${D[@]}"
same_items storm "$tmp/expected/items.json" -- "$tmp/storm-dump/items.json"

# -- a Scan through faults reads every item exactly once ---------------------------------------
control '{"resetStats":true,"rules":[
  {"kind":"throttle","op":"Scan","probability":0.25},
  {"kind":"http500","op":"Scan","probability":0.1},
  {"kind":"drop","op":"Scan","when":"mid","probability":0.1},
  {"kind":"badcrc","op":"Scan","probability":0.1}]}'
run scan 0 "$bin" export --table storm --segments 4 --page-size 100 --format ddb-json \
    --out "$tmp/scan" "${F[@]}" --max-attempts 20
same_items scan-storm "$tmp/expected/items.json" -- "$tmp/scan/items.json"
[ "$(stat_of "o.faults.throttle")" -gt 0 ] || fail "scan: no throttling injected"

# -- one ValidationException on a whole batch: it is split and everything still lands --------
run create2 0 "$bin" create-table --mapping "$fav" --table split "${D[@]}"
control '{"resetStats":true,"rules":[{"kind":"validation","op":"BatchWriteItem","first":1}]}'
run split 0 "$bin" import "$tmp/expected/items.json" --table split "${F[@]}" --summary "$tmp/split.json"
[ "$(summary_total "$tmp/split.json" written)" = "$n" ] || fail "split: all written expected"
grep -q " [1-9][0-9]* batches split" "$tmp/split.err" || fail "split: no batch was split"

# -- a validation error that does not go away rejects each item alone -------------------------
head -60 "$tmp/expected/items.json" >"$tmp/sixty.json"
control '{"resetStats":true,"rules":[{"kind":"validation","op":"BatchWriteItem"}]}'
run always-invalid 1 "$bin" import "$tmp/sixty.json" --table split "${F[@]}" \
    --rejects "$tmp/inv.ndjson" --summary "$tmp/inv.json"
[ "$(summary_total "$tmp/inv.json" rejected)" = 60 ] || fail "always-invalid: 60 rejected expected"
[ "$(wc -l <"$tmp/inv.ndjson")" = 60 ] || fail "always-invalid: 60 reject lines expected"
grep -q '"reason":"ValidationException' "$tmp/inv.ndjson" || fail "always-invalid: reason"
grep -q '"item":{' "$tmp/inv.ndjson" || fail "always-invalid: rejected item kept"

# -- throttled for ever: attempts run out, items are rejected with the last error -------------
control '{"resetStats":true,"rules":[{"kind":"throttle","op":"BatchWriteItem"}]}'
run exhausted 1 "$bin" import "$tmp/sixty.json" --table split "${F[@]}" --max-attempts 2 \
    --rejects "$tmp/exh.ndjson" --summary "$tmp/exh.json"
[ "$(summary_total "$tmp/exh.json" rejected)" = 60 ] || fail "exhausted: 60 rejected expected"
[ "$(summary_total "$tmp/exh.json" written)" = 0 ] || fail "exhausted: nothing written expected"
grep -q 'gave up after 2 attempts: ProvisionedThroughputExceededException' "$tmp/exh.ndjson" ||
    fail "exhausted: the last error is kept"

# -- unprocessed for ever: the writer's own attempts run out -----------------------------------
control '{"resetStats":true,"rules":[{"kind":"unprocessed","op":"BatchWriteItem","fraction":1.0}]}'
run unprocessed 1 "$bin" import "$tmp/sixty.json" --table split "${F[@]}" --max-attempts 3 \
    --rejects "$tmp/unp.ndjson" --summary "$tmp/unp.json"
[ "$(summary_total "$tmp/unp.json" rejected)" = 60 ] || fail "unprocessed: 60 rejected expected"
grep -q 'not written after 3 attempts' "$tmp/unp.ndjson" || fail "unprocessed: reason"

# -- a slow answer beyond --request-timeout is retried ----------------------------------------
run create3 0 "$bin" create-table --mapping "$fav" --table slow "${D[@]}"
control '{"resetStats":true,"rules":[{"kind":"slow","op":"BatchWriteItem","ms":3000,"where":"before","first":2}]}'
run slow 0 "$bin" import "$tmp/sixty.json" --table slow "${F[@]}" --request-timeout 500 \
    --summary "$tmp/slow.json"
[ "$(summary_total "$tmp/slow.json" written)" = 60 ] || fail "slow: 60 written expected"

# -- the last write of a key wins, even when earlier writes come back unprocessed -------------
run create4 0 "$bin" create-table --mapping "$fav" --table order "${D[@]}"
for v in 1 2 3 4; do
    for k in $(seq 1 40); do
        printf '{"Item":{"pk":{"S":"Tag#u%d"},"sk":{"S":"t"},"tagName":{"S":"v%d"}}}\n' "$k" "$v"
    done
done >"$tmp/versions.json"
control '{"resetStats":true,"rules":[{"kind":"unprocessed","op":"BatchWriteItem","itemProbability":0.4,"probability":0.7}]}'
run order 0 "$bin" import "$tmp/versions.json" --table order "${F[@]}" --concurrency 8 \
    --summary "$tmp/order.json"
[ "$(summary_total "$tmp/order.json" written)" = 160 ] || fail "order: 160 writes expected"
run order-dump 0 "$bin" export --table order --format ddb-json --out "$tmp/order-dump" "${D[@]}"
[ "$(grep -c '"tagName":{"S":"v4"}' "$tmp/order-dump/items.json")" = 40 ] ||
    fail "order: every key must hold its last version (v4)"

# -- answers without end fail their call once, naming the limit, in bounded memory -------------
# The server stops after 64 MiB (a thousand times the header limit) only so that a client
# without limits fails these checks rather than taking the machine's memory.
peak_kb() { # peak_kb NAME: the peak RSS /usr/bin/time kept for run NAME (0 without it)
    [ -s "$tmp/$1.rss" ] && tail -1 "$tmp/$1.rss" || echo 0
}
timed() { # timed NAME COMMAND...: COMMAND, its peak RSS in $tmp/NAME.rss where it can be had
    local name=$1
    shift
    if [ -x /usr/bin/time ]; then /usr/bin/time -f %M -o "$tmp/$name.rss" "$@"; else "$@"; fi
}
for kind in padheaders endlessbody; do
    control '{"resetStats":true,"rules":[{"kind":"'$kind'","op":"Scan","bytes":67108864}]}'
    run "$kind" 5 timed "$kind" "$bin" export --table storm --segments 1 --format ddb-json \
        --out "$tmp/$kind" "${F[@]}"
    [ "$(stat_of "o.faults.$kind")" = 1 ] || fail "$kind: sent again ($(stat_of "o.faults.$kind"))"
    [ "$(peak_kb "$kind")" -lt 65536 ] || fail "$kind: peak RSS $(peak_kb "$kind") KB"
done
expect_in "$tmp/padheaders.err" "ResponseTooLarge: the answer's header lines passed 64 KiB"
expect_in "$tmp/endlessbody.err" "ResponseTooLarge: the answer's body passed 32 MiB"

# -- a Scan whose LastEvaluatedKey is the key it was asked from stops, naming it ----------------
# (after 40 such pages the server moves on, so a client that does not notice ends with every
# item of the repeated page written 40 times, and exit 0)
control '{"resetStats":true,"rules":[{"kind":"repeatkey","op":"Scan","times":40}]}'
run repeatkey 5 "$bin" export --table storm --segments 2 --page-size 100 --format ddb-json \
    --out "$tmp/repeatkey" "${F[@]}"
expect_in "$tmp/repeatkey.err" "is the ExclusiveStartKey just sent: the service is repeating a page"
grep -q "Scan of storm segment [01]: page 2's LastEvaluatedKey {" "$tmp/repeatkey.err" ||
    fail "repeatkey: the table, segment, page and key are named"

finish
