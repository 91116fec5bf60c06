#!/usr/bin/env bash
# migrate --live against AWS's DynamoDB Local (dynalite has no Streams): an application keeps
# writing (puts, renames and type changes that move items in the target layout, deletes) while
# the table is copied and its stream replayed; the run is killed with SIGKILL during the copy and
# again during the replay, resumed each time, and must end with the target equal to the source
# through both mappings (diff), with no stale item left (plain counts). Also: a table without a
# stream, a stream without old images where items can move, SIGINT, a position the stream lost.
. "$(dirname "$0")/lib.bash"

start_dynamodb_local

export NODE_NO_WARNINGS=1 # the SDK's note about future Node versions
here="$root/tests/integration/live"
M=(--mapping "$here/source.json" --to-mapping "$here/target.json")
E=(--endpoint-url "$ddbl")
app() { node "$here/app.js" "$1" --endpoint "$ddbl" "${@:2}"; }

# local_call OPERATION JSON: one raw request to DynamoDB Local; prints the answer
local_call() {
    curl -s --max-time 10 -H 'Content-Type: application/x-amz-json-1.0' \
        -H "X-Amz-Target: DynamoDB_20120810.$1" -H 'X-Amz-Date: 20240101T000000Z' \
        -H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETESTONLY/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000' \
        --data "$2" "$ddbl/"
}

# count TABLE: the items a plain Scan counts
count() {
    local_call Scan "{\"TableName\":\"$1\",\"Select\":\"COUNT\"}" |
        sed -n 's/.*"Count":\([0-9]*\).*/\1/p'
}

# seq_of STATE: the first shard's saved sequence number
seq_of() { sed -n 's/.*"seq":"\([0-9]*\)".*/\1/p' "$1" 2>/dev/null; }

# -- refused at the start ----------------------------------------------------------------------
app create --table NoStream --view none
run no-stream 2 "$bin" migrate --live --table NoStream "${M[@]}" --to-table Target0 --create-table "${E[@]}"
expect_in "$tmp/no-stream.err" "update-table --table-name NoStream --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES"
app create --table NewOnly --view NEW_IMAGE
run new-image 2 "$bin" migrate --live --table NewOnly "${M[@]}" --to-table Target0 --create-table "${E[@]}"
expect_in "$tmp/new-image.err" "Tag.tagName feeds the target key SK but is not in the source key"
run live-files 2 "$bin" migrate --live "$here/source.json" "${M[@]}" --to-table Target0 "${E[@]}"

# -- a KEYS_ONLY stream: each changed item is read back (consistent GetItem); an iterator that
#    expired (held past 15 minutes) is asked for again from the position, and a shard read too
#    often is read again later: the fault server answers two GetRecords with
#    ExpiredIteratorException and two (one while the position is taken) with
#    LimitExceededException ---------------------------------------------------------------------
node "$root/tests/fault-server/fault-server.js" --upstream "$ddbl" --port-file "$tmp/fport" \
    --owner-pid $$ --quiet >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fs="http://127.0.0.1:$(cat "$tmp/fport")"
curl -s -XPOST "$fs/__control" -d '{"rules":[{"kind":"validation","op":"GetRecords","nth":[5,8],
    "type":"com.amazonaws.dynamodb.v20120810#ExpiredIteratorException",
    "message":"Iterator expired. The iterator was created at time 0 while right now it is 1"},
    {"kind":"validation","op":"GetRecords","nth":[1,10],
    "type":"com.amazonaws.dynamodb#LimitExceededException",
    "message":"Your request rate is too high."}]}' >/dev/null
app create --table KeysOnly --view KEYS_ONLY
app seed --table KeysOnly --users 3
K=(--mapping "$here/source.json" --to-mapping "$here/target-fixed.json")
"$bin" migrate --live --table KeysOnly "${K[@]}" --to-table KeysOnlyTarget --create-table \
    --endpoint-url "$fs" --stop-when-idle 6 >"$tmp/keys-only.out" 2>"$tmp/keys-only.err" &
ko_pid=$!
app churn --table KeysOnly --users 3 --seconds 2 --rate 40 --seed 3 >/dev/null ||
    fail "the application failed on KeysOnly"
wait "$ko_pid" || fail "keys-only: exit $?: $(tail -3 "$tmp/keys-only.err")"
grep -q ' 0 read back' "$tmp/keys-only.err" && fail "keys-only: no item was read back"
fired=$(curl -s "$fs/__control" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).rules.map(r=>r.fired).join(",")))')
[ "$fired" = 2,2 ] || fail "keys-only: the expired-iterator and throttling rules fired ${fired:-0} times, expected 2,2"
run keys-only-diff 0 "$bin" diff --table KeysOnly --to-table KeysOnlyTarget "${K[@]}" "${E[@]}" \
    --out "$tmp/diff-ko"

# -- a live migration, killed twice, resumed ---------------------------------------------------
app create --table LiveSource
app seed --table LiveSource --users 30
app churn --table LiveSource --users 30 --seconds 60 --rate 60 --stop-file "$tmp/app.stop" >"$tmp/app.out" 2>"$tmp/app.err" &
app_pid=$!
st="$tmp/live.state"
# the copy slowed so the kill lands in it (300 items at 60 WCU/s: about 5 s)
L=(migrate --live --table LiveSource "${M[@]}" --to-table LiveTarget "${E[@]}" --state "$st"
    --max-wcu 60 --page-size 20)
"$bin" "${L[@]}" --create-table --checkpoint-interval 0 >"$tmp/run1.out" 2>"$tmp/run1.err" &
pid=$!
kill_after_progress "$pid" "$st" none >/dev/null || fail "run 1 was not killed during the copy"
wait "$pid" 2>/dev/null
[ -s "$st.live" ] || fail "the stream position was not saved before the copy"
first=$(seq_of "$st.live")
# resumed: the copy goes on, then the replay; killed once the replay has moved the position
"$bin" "${L[@]}" --resume --checkpoint-interval 0 >"$tmp/run2.out" 2>"$tmp/run2.err" &
pid=$!
for _ in $(seq 1 1500); do
    s=$(seq_of "$st.live")
    [ -n "$s" ] && [ "$s" != "$first" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.02
done
kill -0 "$pid" 2>/dev/null || fail "run 2 ended before it was killed: $(tail -3 "$tmp/run2.err")"
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
kill -0 "$app_pid" 2>/dev/null || fail "the application stopped writing before the replay was killed"
sleep 1 # a little more written after the kill
touch "$tmp/app.stop"
wait "$app_pid" || fail "the application failed: $(cat "$tmp/app.err")"
run resume 0 "$bin" "${L[@]}" --resume --stop-when-idle 2
expect_in "$tmp/resume.err" "changes applied"
run diff 0 "$bin" diff --table LiveSource --to-table LiveTarget "${M[@]}" "${E[@]}" --out "$tmp/diff"
expect_in "$tmp/diff.err" "0 different, 0 only in A, 0 only in B"
a=$(count LiveSource) b=$(count LiveTarget)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "plain counts: $a items in the source, $b in the target"
grep -q 'moves' "$tmp/app.out" || fail "the application did not report its changes"

# -- SIGINT saves the position and exits 130; the next resume goes on from it ------------------
app churn --table LiveSource --users 30 --seconds 2 --rate 50 --seed 7 >/dev/null 2>&1
"$bin" "${L[@]}" --resume >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
for _ in $(seq 1 500); do grep -q "^ddbpipe: live:" "$tmp/int.err" && break; sleep 0.02; done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] || fail "SIGINT: exit $rc, expected 130"
expect_in "$tmp/int.err" "position saved, continue with the same command and --resume"
run diff-int 0 "$bin" diff --table LiveSource --to-table LiveTarget "${M[@]}" "${E[@]}" --out "$tmp/diff2"

# -- a change whose item is of no entity goes to the unmatched file beside the state ---------
local_call PutItem '{"TableName":"LiveSource","Item":{"pk":{"S":"OTHER#1"},"sk":{"S":"x"}}}' >/dev/null
run unmatched 0 "$bin" "${L[@]}" --resume --stop-when-idle 1
expect_in "$tmp/unmatched.err" "1 unmatched"
expect_in "$tmp/unmatched.err" "changes of no entity: $st.live.unmatched.ndjson"
expect_in "$st.live.unmatched.ndjson" '"pk":{"S":"OTHER#1"}'
local_call DeleteItem '{"TableName":"LiveSource","Key":{"pk":{"S":"OTHER#1"},"sk":{"S":"x"}}}' >/dev/null

# -- a position the stream no longer holds is an error, never a gap ----------------------------
sed 's/"id":"[^"]*"/"id":"shardId-00000000000000000000-00000000"/' "$st.live" >"$st.tmp" &&
    mv "$st.tmp" "$st.live"
run lost 2 "$bin" "${L[@]}" --resume --stop-when-idle 1
expect_in "$tmp/lost.err" "start the live migration over"

# -- a stream turned off and on again is another stream: the saved position is refused ---------
local_call UpdateTable '{"TableName":"LiveSource","StreamSpecification":{"StreamEnabled":false}}' >/dev/null
local_call UpdateTable '{"TableName":"LiveSource","StreamSpecification":{"StreamEnabled":true,
    "StreamViewType":"NEW_AND_OLD_IMAGES"}}' >"$tmp/reenable.json"
grep -q LatestStreamArn "$tmp/reenable.json" || fail "re-enabling the stream: $(cat "$tmp/reenable.json")"
run other-stream 2 "$bin" "${L[@]}" --resume --stop-when-idle 1
expect_in "$tmp/other-stream.err" "it was turned off and on again"

finish
