#!/usr/bin/env bash
# Running politely and restartably against a table: --max-wcu holds the write rate over a
# window of seconds; a throttling storm makes the run back off (fewer requests in flight) and
# still write everything; imports killed with SIGKILL and resumed end with exactly the input in
# the table and the counts of an uninterrupted run; a scan export killed and resumed writes the
# same files as one that was not.
. "$(dirname "$0")/lib.bash"
gen="$tools/ddbpipe-gen"
plain="$tmp/plain.json"
cat >"$plain" <<'JSON'
{"table":{"name":"plain","partitionKey":{"name":"pk","type":"S"}},
 "entities":[{"name":"P","keys":{"pk":"{id}"},"fields":[{"name":"id"}]}]}
JSON

node "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --port-file "$tmp/fport" \
    --seed 3 --owner-pid $$ --quiet >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fs="http://127.0.0.1:$(cat "$tmp/fport")"
F=(--endpoint-url "$fs")
D=(--endpoint-url "$endpoint")
control() { curl -s -XPOST "$fs/__control" -d "$1" >/dev/null; }

# items of 1 to 2 KB: 1 or 2 WCU each, mixed
node -e '
for (let i = 0; i < 2000; i++)
  console.log(JSON.stringify({Item: {pk: {S: "k" + String(i).padStart(5, "0")},
                                     pad: {S: "x".repeat(600 + (i % 7) * 200)}}}));' >"$tmp/items.json"
n=$(wc -l <"$tmp/items.json")

# -- --max-wcu 200 over a window of seconds, through the fault server ---------------------------
run create 0 "$bin" create-table --mapping "$plain" --table rate "${D[@]}"
control '{"rules":[{"kind":"unprocessed","op":"BatchWriteItem","itemProbability":0.1,"probability":0.3}]}'
# the first 1300 items: 2042 WCU, 10 s at 200/s (the window measured: from 2 s to the end)
head -1300 "$tmp/items.json" >"$tmp/rate-items.json"
run rate 0 "$bin" import "$tmp/rate-items.json" --table rate "${F[@]}" --max-wcu 200 \
    --progress json --progress-interval 1 --summary "$tmp/rate.json"
[ "$(summary_total "$tmp/rate.json" written)" = 1300 ] || fail "rate: all items written"
# capacity per second between the sample at >= 2 s and the last sample before the end
node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n")
  .filter(l => l.startsWith("{\"progress\"")).map(l => JSON.parse(l).progress);
const a = lines.find(p => p.elapsed_s >= 2), b = lines[lines.length - 1];
if (!a || !b || b.elapsed_s - a.elapsed_s < 4) { console.log("window too short"); process.exit(1); }
const rate = (b.capacity_units - a.capacity_units) / (b.elapsed_s - a.elapsed_s);
console.log("WCU/s over " + (b.elapsed_s - a.elapsed_s).toFixed(1) + " s: " + rate.toFixed(1));
process.exit(rate >= 180 && rate <= 220 ? 0 : 1);' "$tmp/rate.err" >"$tmp/rate.window" ||
    fail "rate: $(cat "$tmp/rate.window") (want 200 +- 10%)"

# -- a throttling storm: the run backs off and still writes everything ---------------------------
# The storm lasts 2.5 s from the first throttle, then ends: the run cuts its requests in flight at
# most once a second, so it is cut at least twice. (A storm ended by chance, when no batch was
# left to throttle, could last 80 s: a batch throttled ten times in a row waits out backoffs of
# up to 20 s.)
run create2 0 "$bin" create-table --mapping "$plain" --table storm "${D[@]}"
control '{"resetStats":true,"rules":[{"kind":"throttle","op":"BatchWriteItem","probability":0.7,"times":300},{"kind":"slow","op":"BatchWriteItem","ms":20}]}'
"$bin" import "$tmp/items.json" --table storm "${F[@]}" --concurrency 16 --max-attempts 30 \
    --progress json --progress-interval 1 --summary "$tmp/storm.json" >"$tmp/storm.out" 2>"$tmp/storm.err" &
pid=$!
for _ in $(seq 1 300); do
    curl -s "$fs/__stats" | tr -d ' \n' | grep -q '"faults":{"throttle":[1-9]' && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
sleep 2.5
control '{"rules":[{"kind":"slow","op":"BatchWriteItem","ms":20}]}'
wait "$pid"
code=$?
[ "$code" = 0 ] || { fail "storm: exit $code"; tail -30 "$tmp/storm.err" >&2; }
[ "$(summary_total "$tmp/storm.json" written)" = "$n" ] || fail "storm: all items written"
grep -q 'requests in flight cut [0-9]* times*, down to [1-7] (of 16)' "$tmp/storm.err" ||
    fail "storm: requests in flight never dropped below 8"
grep -q '[1-9][0-9]* throttled' "$tmp/storm.err" || fail "storm: throttles reported"

# -- kill -9 at several points, resume, end with exactly the input -------------------------------
run create3 0 "$bin" create-table --mapping "$plain" --table killed "${D[@]}"
control '{"resetStats":true,"rules":[{"kind":"slow","op":"BatchWriteItem","ms":80}]}'
kills=0
last=none
for round in 1 2 3 4; do
    resume=""
    [ -f "$tmp/k.state" ] && resume=--resume
    # a small shuffle window: its items are not acknowledged, so checkpoints lag by it
    "$bin" import "$tmp/items.json" --table killed "${F[@]}" --concurrency 1 --state "$tmp/k.state" \
        --shuffle-window 100 --checkpoint-interval 0 $resume --quiet --summary "$tmp/k.json" 2>>"$tmp/k.err" &
    pid=$!
    if p=$(kill_after_progress "$pid" "$tmp/k.state" "$last"); then
        kills=$((kills + 1))
        last=$p
    fi
    wait "$pid" 2>/dev/null
done
[ "$kills" -ge 3 ] || fail "kill: runs ended before being killed ($kills kills)"
if ! grep -q '"complete":true' "$tmp/k.state"; then
    run kill-resume 0 "$bin" import "$tmp/items.json" --table killed "${F[@]}" --state "$tmp/k.state" \
        --resume --summary "$tmp/k.json"
fi
[ "$(summary_total "$tmp/k.json" read)" = "$n" ] || fail "kill: read $(summary_total "$tmp/k.json" read), want $n"
[ "$(summary_total "$tmp/k.json" written)" = "$n" ] || fail "kill: written $(summary_total "$tmp/k.json" written), want $n"
run kill-dump 0 "$bin" export --table killed --format ddb-json --out "$tmp/kdump" "${D[@]}"
same_items killed-then-resumed "$tmp/items.json" -- "$tmp/kdump/items.json"

# -- SIGINT: finishes cleanly with 130, after the answers to the writes already sent (slowed
#    down here, each applied before its answer), so written is what the table holds; the resume
#    completes ----------------------------------------------------------------------------------
run create4 0 "$bin" create-table --mapping "$plain" --table sigint "${D[@]}"
control '{"resetStats":true,"rules":[{"kind":"slow","op":"BatchWriteItem","ms":700}]}'
"$bin" import "$tmp/items.json" --table sigint "${F[@]}" --concurrency 2 --state "$tmp/i.state" \
    --checkpoint-interval 0 --summary "$tmp/int0.json" 2>"$tmp/int.err" &
pid=$!
kill_after_progress "$pid" "$tmp/i.state" none INT >/dev/null
wait "$pid"
code=$?
control '{"clear":true}'
[ "$code" = 130 ] || fail "SIGINT: exit $code, want 130"
grep -q "interrupted: checkpoint saved" "$tmp/int.err" || fail "SIGINT: summary"
grep -q "waiting for the answers to the writes already sent" "$tmp/int.err" ||
    fail "SIGINT: no word of the writes in flight"
run int-count 0 "$bin" export --table sigint --format ddb-json --out "$tmp/intdump" "${D[@]}"
held=$(wc -l <"$tmp/intdump/items.json")
[ "$(summary_total "$tmp/int0.json" written)" = "$held" ] ||
    fail "SIGINT: the summary says $(summary_total "$tmp/int0.json" written) written, the table holds $held"
[ "$held" -lt "$n" ] || fail "SIGINT: the run finished before the signal; nothing was checked"
run int-resume 0 "$bin" import "$tmp/items.json" --table sigint "${F[@]}" --state "$tmp/i.state" \
    --resume --summary "$tmp/int.json"
[ "$(summary_total "$tmp/int.json" written)" = "$n" ] || fail "SIGINT: written after resume"

# -- a scan export killed and resumed writes the same files --------------------------------------
control '{"resetStats":true,"rules":[{"kind":"slow","op":"Scan","ms":60}]}'
run scan-full 0 "$bin" export --table killed --segments 1 --page-size 100 --format ddb-json \
    --out "$tmp/scan-full" "${F[@]}"
killed_scan=0
last=none
for round in 1 2; do
    resume=""
    [ -f "$tmp/s.state" ] && resume=--resume
    "$bin" export --table killed --segments 1 --page-size 100 --format ddb-json --out "$tmp/scan-part" \
        "${F[@]}" --state "$tmp/s.state" --checkpoint-interval 0 $resume --quiet 2>>"$tmp/s.err" &
    pid=$!
    if p=$(kill_after_progress "$pid" "$tmp/s.state" "$last"); then
        killed_scan=$((killed_scan + 1))
        last=$p
    fi
    wait "$pid" 2>/dev/null
done
[ "$killed_scan" -ge 1 ] || fail "scan: never killed"
if ! grep -q '"complete":true' "$tmp/s.state"; then
    run scan-resume 0 "$bin" export --table killed --segments 1 --page-size 100 --format ddb-json \
        --out "$tmp/scan-part" "${F[@]}" --state "$tmp/s.state" --resume
fi
cmp -s "$tmp/scan-full/items.json" "$tmp/scan-part/items.json" ||
    fail "scan: the resumed export differs from the uninterrupted one"
# several segments: same items, page order aside
control '{"resetStats":true,"rules":[{"kind":"slow","op":"Scan","ms":30}]}'
"$bin" export --table killed --segments 4 --page-size 100 --format ddb-json --out "$tmp/scan4" \
    "${F[@]}" --state "$tmp/s4.state" --checkpoint-interval 0 --quiet 2>/dev/null &
pid=$!
kill_after_progress "$pid" "$tmp/s4.state" none >/dev/null
wait "$pid" 2>/dev/null
grep -q '"complete":true' "$tmp/s4.state" ||
    run scan4-resume 0 "$bin" export --table killed --segments 4 --page-size 100 --format ddb-json \
        --out "$tmp/scan4" "${F[@]}" --state "$tmp/s4.state" --resume --summary "$tmp/s4.json"
same_items scan4-resumed "$tmp/items.json" -- "$tmp/scan4/items.json"

# -- dry run with an estimate ------------------------------------------------------------------
run dry 0 "$bin" import "$tmp/items.json" --table rate "${D[@]}" --dry-run --max-wcu 100
grep -q "at --max-wcu 100/s" "$tmp/dry.err" || fail "dry run: duration estimate"

finish
