#!/usr/bin/env bash
# Self-test of the DynamoDB test infrastructure: dynalite (scripts/dynalite.sh) with the
# fault-injecting proxy (tests/fault-server/fault-server.js) in front of it. Loopback only.
# Needs node, curl and `npm ci` done at the repository root. Exits non-zero on any failure and
# ends with a "N passed, N failed" line.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
node_bin="${NODE:-node}"

work="$(mktemp -d /tmp/ddb-fault-selftest.XXXXXX)"
fs_pid=""
passed=0
failed=0

cleanup() {
	# A second signal must not cut cleanup short and leave servers or files behind.
	trap '' INT TERM
	if [[ -n "$fs_pid" ]]; then
		kill -TERM "$fs_pid" 2>/dev/null
		wait "$fs_pid" 2>/dev/null
	fi
	"$root/scripts/dynalite.sh" stop "$work/dynalite" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() {
	passed=$((passed + 1))
	echo "ok   - $*"
}
fail() {
	failed=$((failed + 1))
	echo "FAIL - $*"
}
fatal() {
	echo "FATAL - $*" >&2
	echo "$passed passed, $((failed + 1)) failed"
	exit 1
}

# ddb URL OPERATION BODY OUTPREFIX -> prints the HTTP status; OUTPREFIX.h/.b hold headers/body.
# dynalite wants an AWS4-looking Authorization header and X-Amz-Date; it never checks signatures.
ddb() {
	local url="$1" op="$2" body="$3" out="$4"
	curl -s --max-time 10 -D "$out.h" -o "$out.b" -w '%{http_code}' \
		-H 'Content-Type: application/x-amz-json-1.0' \
		-H "X-Amz-Target: DynamoDB_20120810.$op" \
		-H 'X-Amz-Date: 20240101T000000Z' \
		-H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000' \
		--data-binary "$body" "$url/"
}

control() {
	curl -s --max-time 5 -o "$work/ctl.out" -w '%{http_code}' -X POST --data-binary "$1" "$fs_url/__control"
}

# js ARG... : run a node snippet read from stdin; the ARGs are process.argv[2..].
js() { "$node_bin" - "$@"; }

# --- start dynalite -----------------------------------------------------------------------
dyn_url="$(DYNALITE_OWNER_PID=$$ "$root/scripts/dynalite.sh" start "$work/dynalite")" ||
	fatal "dynalite did not start"
echo "# dynalite at $dyn_url"

# --- start the fault server with a script: 50% of each BatchWriteItem comes back unprocessed --
cat >"$work/faults.json" <<'EOF'
{ "seed": 7, "rules": [ { "id": "half", "kind": "unprocessed", "fraction": 0.5 } ] }
EOF
"$node_bin" "$here/fault-server.js" --upstream "$dyn_url" --script "$work/faults.json" \
	--port-file "$work/fs.port" --owner-pid $$ --quiet >"$work/fs.stdout" 2>"$work/fs.stderr" &
fs_pid=$!
for _ in $(seq 1 100); do
	[[ -s "$work/fs.port" ]] && break
	kill -0 "$fs_pid" 2>/dev/null || fatal "fault server exited: $(cat "$work/fs.stderr")"
	sleep 0.05
done
[[ -s "$work/fs.port" ]] || fatal "fault server wrote no port file"
fs_url="http://127.0.0.1:$(tr -d '[:space:]' <"$work/fs.port")"
echo "# fault server at $fs_url"
first_line="$(head -n1 "$work/fs.stdout")"
if [[ "$first_line" == "PORT $(tr -d '[:space:]' <"$work/fs.port")" ]]; then
	ok "first stdout line is '$first_line'"
else
	fail "first stdout line is '$first_line'"
fi

# --- create a table through the proxy ------------------------------------------------------
table=selftest_items
code=$(ddb "$fs_url" CreateTable "{\"TableName\":\"$table\",\"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"},{\"AttributeName\":\"sk\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}" "$work/create")
[[ "$code" == 200 ]] || fatal "CreateTable via proxy: HTTP $code $(cat "$work/create.b")"
active=""
for _ in $(seq 1 50); do
	ddb "$fs_url" DescribeTable "{\"TableName\":\"$table\"}" "$work/desc" >/dev/null
	if grep -q '"TableStatus":"ACTIVE"' "$work/desc.b"; then
		active=1
		break
	fi
	sleep 0.1
done
[[ -n "$active" ]] || fatal "table never became ACTIVE"
ok "table created through the proxy and ACTIVE"

# --- seed 5 items directly in dynalite; the batch below deletes them ------------------------
js "$table" >"$work/seed.json" <<'EOF'
const t = process.argv[2], items = []
for (let i = 0; i < 5; i++) items.push({ PutRequest: { Item: { pk: { S: 'del' }, sk: { S: 'd' + i }, n: { N: String(i) } } } })
console.log(JSON.stringify({ RequestItems: { [t]: items } }))
EOF
code=$(ddb "$dyn_url" BatchWriteItem "$(cat "$work/seed.json")" "$work/seed")
[[ "$code" == 200 ]] || fatal "seeding dynalite: HTTP $code $(cat "$work/seed.b")"

# --- BatchWriteItem of 25 (20 puts + 5 deletes) under the "unprocessed 50%" rule -------------
js "$table" >"$work/batch.json" <<'EOF'
const t = process.argv[2], reqs = []
for (let i = 0; i < 20; i++) {
  reqs.push({ PutRequest: { Item: {
    pk: { S: 'p' + (i % 4) }, sk: { S: 's' + String(i).padStart(2, '0') },
    num: { N: '12345678901234567890123456789012345678' }, bin: { B: 'AAEC/w==' },
    nested: { M: { l: { L: [ { S: 'é😀' }, { NULL: true }, { BOOL: false } ] }, ss: { SS: [ 'a', 'b' ] } } },
  } } })
  if (i % 4 === 3) reqs.push({ DeleteRequest: { Key: { pk: { S: 'del' }, sk: { S: 'd' + ((i - 3) / 4) } } } })
}
console.log(JSON.stringify({ RequestItems: { [t]: reqs }, ReturnConsumedCapacity: 'TOTAL' }))
EOF
code=$(ddb "$fs_url" BatchWriteItem "$(cat "$work/batch.json")" "$work/batch")
[[ "$code" == 200 ]] || fatal "BatchWriteItem via proxy: HTTP $code $(cat "$work/batch.b")"

# The table's true contents, read from dynalite directly (bypassing the proxy).
code=$(ddb "$dyn_url" Scan "{\"TableName\":\"$table\"}" "$work/scan")
[[ "$code" == 200 ]] || fatal "Scan of dynalite: HTTP $code"
curl -s --max-time 5 "$fs_url/__stats" >"$work/stats1.json"

if js "$work/batch.json" "$work/batch.b" "$work/scan.b" "$work/stats1.json" "$table" <<'EOF'; then
const fs = require('fs'), assert = require('assert')
const [ reqF, respF, scanF, statsF, table ] = process.argv.slice(2)
const req = JSON.parse(fs.readFileSync(reqF)), resp = JSON.parse(fs.readFileSync(respF))
const scan = JSON.parse(fs.readFileSync(scanF)), stats = JSON.parse(fs.readFileSync(statsF))
const sent = req.RequestItems[table]
const unp = resp.UnprocessedItems
assert.deepStrictEqual(Object.keys(unp), [ table ], 'UnprocessedItems names exactly the one table')
const back = unp[table]
assert.ok(back.length > 0 && back.length < 25, `some but not all items unprocessed (${back.length})`)
const canon = (wr) => JSON.stringify(wr)
const sentSet = new Set(sent.map(canon))
const backSet = new Set(back.map(canon))
assert.strictEqual(backSet.size, back.length, 'no duplicates among unprocessed items')
for (const wr of back) {
  assert.ok(sentSet.has(canon(wr)), 'unprocessed entry is verbatim one of the request entries: ' + canon(wr))
  const keys = Object.keys(wr)
  assert.ok(keys.length === 1 && (keys[0] === 'PutRequest' ? 'Item' in wr.PutRequest : 'Key' in wr.DeleteRequest), 'request shape')
}
const keyOf = (it) => it.pk.S + '|' + it.sk.S
const inTable = new Map(scan.Items.map((it) => [ keyOf(it), it ]))
let written = 0, notWritten = 0
for (const wr of sent) {
  const returned = backSet.has(canon(wr))
  if (wr.PutRequest) {
    const present = inTable.has(keyOf(wr.PutRequest.Item))
    assert.strictEqual(present, !returned, `put ${keyOf(wr.PutRequest.Item)}: returned=${returned} present=${present}`)
    if (present) assert.deepStrictEqual(inTable.get(keyOf(wr.PutRequest.Item)), wr.PutRequest.Item, 'stored item equals the sent item')
    present ? written++ : notWritten++
  } else {
    const present = inTable.has(keyOf(wr.DeleteRequest.Key))
    assert.strictEqual(present, returned, `delete ${keyOf(wr.DeleteRequest.Key)}: returned=${returned} still present=${present}`)
    present ? notWritten++ : written++
  }
}
assert.strictEqual(written + back.length, 25, `written upstream (${written}) + returned unprocessed (${back.length}) = 25`)
assert.strictEqual(notWritten, back.length)
assert.strictEqual(scan.Items.length, 25 - 5 - back.length + 2 * back.filter((w) => w.DeleteRequest).length,
  'table holds exactly the written puts plus the undeleted seeds')
assert.strictEqual(stats.batchWrite.itemsRequested, 25)
assert.strictEqual(stats.batchWrite.itemsForwarded, written, 'stats.itemsForwarded')
assert.strictEqual(stats.batchWrite.itemsUnprocessedInjected, back.length, 'stats.itemsUnprocessedInjected')
assert.strictEqual(stats.faults.unprocessed, 1)
assert.ok(Array.isArray(resp.ConsumedCapacity), 'upstream ConsumedCapacity relayed')
console.log(`# ${written} written + ${back.length} unprocessed (${back.filter((w) => w.DeleteRequest).length} deletes) = 25`)
EOF
	ok "unprocessed 50%: written + unprocessed = 25, unprocessed ones not applied, shape verbatim"
else
	fail "unprocessed 50% check"
fi

# --- resend the unprocessed items with the rule cleared: all of them land --------------------
[[ "$(control '{"clear":true}')" == 200 ]] || fail "control clear"
js "$work/batch.b" "$table" >"$work/retry.json" <<'EOF'
const r = JSON.parse(require('fs').readFileSync(process.argv[2]))
console.log(JSON.stringify({ RequestItems: r.UnprocessedItems }))
EOF
code=$(ddb "$fs_url" BatchWriteItem "$(cat "$work/retry.json")" "$work/retry")
ddb "$dyn_url" Scan "{\"TableName\":\"$table\",\"Select\":\"COUNT\"}" "$work/count" >/dev/null
if [[ "$code" == 200 ]] && grep -q '"UnprocessedItems":{}' "$work/retry.b" && grep -q '"Count":20[,}]' "$work/count.b"; then
	ok "retrying UnprocessedItems without faults completes the batch (20 items, 5 seeds deleted)"
else
	fail "retry of unprocessed: HTTP $code $(cat "$work/retry.b") count=$(cat "$work/count.b")"
fi

# --- throttle: 400 + ProvisionedThroughputExceededException, request not forwarded ----------
[[ "$(control '{"rules":[{"kind":"throttle","op":"PutItem","first":1}]}')" == 200 ]] || fail "control throttle"
put_body="{\"TableName\":\"$table\",\"Item\":{\"pk\":{\"S\":\"thr\"},\"sk\":{\"S\":\"1\"}}}"
code=$(ddb "$fs_url" PutItem "$put_body" "$work/thr")
ddb "$dyn_url" GetItem "{\"TableName\":\"$table\",\"Key\":{\"pk\":{\"S\":\"thr\"},\"sk\":{\"S\":\"1\"}}}" "$work/thr_get" >/dev/null
if [[ "$code" == 400 ]] &&
	grep -q '"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"' "$work/thr.b" &&
	grep -q '"message":"' "$work/thr.b" && [[ "$(cat "$work/thr_get.b")" == "{}" ]]; then
	ok "throttle rule: HTTP 400 ProvisionedThroughputExceededException, item not written"
else
	fail "throttle rule: HTTP $code $(cat "$work/thr.b") get=$(cat "$work/thr_get.b")"
fi
code=$(ddb "$fs_url" PutItem "$put_body" "$work/thr2")
if [[ "$code" == 200 ]]; then ok "throttle first:1 lets the second PutItem through"; else fail "second PutItem: HTTP $code"; fi

# --- CRC header: correct on relayed and synthesized responses, wrong under badcrc -----------
crc_check() { # crc_check HEADERS BODY -> prints "match" or "mismatch header=.. body=.."
	js "$1" "$2" <<'EOF'
const fs = require('fs'), zlib = require('zlib')
const h = fs.readFileSync(process.argv[2], 'latin1').split(/\r?\n/)
const line = h.filter((l) => /^x-amz-crc32:/i.test(l)).pop()
const got = line ? line.split(':')[1].trim() : '(missing)'
const body = fs.readFileSync(process.argv[3])
// zlib.crc32 (Node >= 20.15) is independent of fault-server.js's own table.
const want = String(typeof zlib.crc32 === 'function' ? zlib.crc32(body) : require(process.env.FS_JS).crc32(body))
console.log(got === want ? 'match' : `mismatch header=${got} body=${want}`)
EOF
}
export FS_JS="$here/fault-server.js"
ddb "$fs_url" Scan "{\"TableName\":\"$table\"}" "$work/crc_scan" >/dev/null
r1=$(crc_check "$work/crc_scan.h" "$work/crc_scan.b")
r2=$(crc_check "$work/thr.h" "$work/thr.b")
r3=$(crc_check "$work/batch.h" "$work/batch.b")
if [[ "$r1" == match && "$r2" == match && "$r3" == match ]]; then
	ok "x-amz-crc32 correct on relayed, synthesized and rewritten responses"
else
	fail "x-amz-crc32: scan=$r1 throttle=$r2 batch=$r3"
fi
[[ "$(control '{"rules":[{"kind":"badcrc","op":"Scan","first":1}]}')" == 200 ]] || fail "control badcrc"
code=$(ddb "$fs_url" Scan "{\"TableName\":\"$table\"}" "$work/bad_scan")
r4=$(crc_check "$work/bad_scan.h" "$work/bad_scan.b")
if [[ "$code" == 200 && "$r4" == mismatch* ]] && cmp -s "$work/bad_scan.b" "$work/crc_scan.b"; then
	ok "badcrc: same body, wrong x-amz-crc32"
else
	fail "badcrc: HTTP $code $r4"
fi

# --- keep-alive and concurrency -------------------------------------------------------------
control '{"clear":true,"resetStats":true}' >/dev/null
urls=()
for _ in 1 2 3 4 5 6; do urls+=(-o /dev/null "$fs_url/"); done
curl -s --max-time 10 -w '%{http_code}\n' \
	-H 'Content-Type: application/x-amz-json-1.0' -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
	-H 'X-Amz-Date: 20240101T000000Z' \
	-H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0000' \
	--data '{}' "${urls[@]}" >"$work/ka.codes"
curl -s --max-time 5 "$fs_url/__stats" >"$work/stats_ka.json"
if [[ "$(grep -c '^200$' "$work/ka.codes")" == 6 ]] &&
	js "$work/stats_ka.json" <<'EOF'; then
const s = JSON.parse(require('fs').readFileSync(process.argv[2]))
// One connection for the six requests, plus the one carrying this very stats call.
process.exit(s.requests === 6 && s.connections.opened === 2 ? 0 : 1)
EOF
	ok "keep-alive: 6 requests over one connection"
else
	fail "keep-alive: codes=$(tr '\n' ' ' <"$work/ka.codes") stats=$(cat "$work/stats_ka.json")"
fi
control '{"rules":[{"kind":"slow","ms":300}]}' >/dev/null
pids=()
start_ns=$(date +%s%N)
for i in $(seq 1 12); do
	ddb "$fs_url" PutItem "{\"TableName\":\"$table\",\"Item\":{\"pk\":{\"S\":\"conc\"},\"sk\":{\"S\":\"$i\"}}}" "$work/conc$i" >"$work/conc$i.code" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
control '{"clear":true}' >/dev/null
ddb "$dyn_url" Query "{\"TableName\":\"$table\",\"KeyConditionExpression\":\"pk = :p\",\"ExpressionAttributeValues\":{\":p\":{\"S\":\"conc\"}},\"Select\":\"COUNT\"}" "$work/concq" >/dev/null
codes_ok=$(cat "$work"/conc*.code | grep -o 200 | wc -l)
if [[ "$codes_ok" == 12 ]] && grep -q '"Count":12[,}]' "$work/concq.b" && ((elapsed_ms < 3000)); then
	ok "12 concurrent slow (300 ms) PutItems all succeed in ${elapsed_ms} ms"
else
	fail "concurrency: ok=$codes_ok elapsed=${elapsed_ms}ms $(cat "$work/concq.b")"
fi

# --- a bad control command is refused and leaves the rules alone ----------------------------
control '{"rules":[{"id":"keep","kind":"throttle","op":"DescribeTable","first":0}]}' >/dev/null
code=$(control '{"rules":[{"kind":"nonsense"}]}')
curl -s --max-time 5 "$fs_url/__control" >"$work/rules.json"
if [[ "$code" == 400 ]] && grep -q '"id": "keep"' "$work/rules.json"; then
	ok "invalid rule refused with 400, previous rules kept"
else
	fail "invalid rule: HTTP $code rules=$(cat "$work/rules.json")"
fi

echo "$passed passed, $failed failed"
((failed == 0))
