#!/usr/bin/env bash
# Resume works whenever a state file was asked for, from the first second: imports through a
# slow server are killed with SIGKILL at fixed moments (0.5 s, 1.5 s and 4 s after they start:
# before the table was even described, before the first batch came back, mid-run), three rounds,
# every run started with --resume (the first ones have no state file yet and start from the
# beginning with a note); a last --resume finishes, and the table holds exactly the input.
. "$(dirname "$0")/lib.bash"
plain="$tmp/plain.json"
cat >"$plain" <<'JSON'
{"table":{"name":"plain","partitionKey":{"name":"pk","type":"S"}},
 "entities":[{"name":"P","keys":{"pk":"{id}"},"fields":[{"name":"id"}]}]}
JSON
node "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --port-file "$tmp/fport" \
    --seed 5 --owner-pid $$ --quiet >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fs="http://127.0.0.1:$(cat "$tmp/fport")"
F=(--endpoint-url "$fs")
D=(--endpoint-url "$endpoint")
# DescribeTable answers after 700 ms, each batch after 150 ms: a slow, far-away table
curl -s -XPOST "$fs/__control" -d '{"rules":[{"kind":"slow","op":"DescribeTable","ms":700,"where":"before"},{"kind":"slow","op":"BatchWriteItem","ms":150}]}' >/dev/null

node -e '
for (let i = 0; i < 3000; i++)
  console.log(JSON.stringify({Item: {pk: {S: "k" + String(i).padStart(5, "0")}, n: {N: String(i)}}}));' >"$tmp/items.json"
n=$(wc -l <"$tmp/items.json")
run create 0 "$bin" create-table --mapping "$plain" --table early "${D[@]}"

kills=0
for round in 1 2 3; do
    for at in 0.5 1.5 4; do
        "$bin" import "$tmp/items.json" --table early "${F[@]}" --concurrency 2 \
            --state "$tmp/e.state" --resume --quiet 2>>"$tmp/runs.err" &
        pid=$!
        sleep "$at"
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid"
            kills=$((kills + 1))
        fi
        wait "$pid" 2>/dev/null
    done
done
[ "$kills" -ge 8 ] || fail "only $kills of 9 runs were still going when killed"
grep -q "does not exist yet (the run stopped before its first checkpoint): starting from the beginning" \
    "$tmp/runs.err" || fail "no note about starting a resume from the beginning"
grep -qi "error" "$tmp/runs.err" && fail "a run failed: $(grep -i error "$tmp/runs.err" | head -2)"
[ -f "$tmp/e.state" ] || fail "no state file after 9 runs"
run finish 0 "$bin" import "$tmp/items.json" --table early "${F[@]}" --concurrency 4 \
    --state "$tmp/e.state" --resume --summary "$tmp/e.json"
[ "$(summary_total "$tmp/e.json" read)" = "$n" ] || fail "read $(summary_total "$tmp/e.json" read), want $n"
[ "$(summary_total "$tmp/e.json" written)" = "$n" ] || fail "written $(summary_total "$tmp/e.json" written), want $n"
run dump 0 "$bin" export --table early --format ddb-json --out "$tmp/dump" "${D[@]}"
same_items early-kills "$tmp/items.json" -- "$tmp/dump/items.json"
finish
