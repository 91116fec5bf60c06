#!/usr/bin/env bash
# Stream records and Time to Live against a table: a Lambda event file imported applies its
# INSERT, MODIFY and REMOVE in order (the item put, changed, then deleted; another one left as its
# last MODIFY made it); --skip-expired leaves out, and counts, items whose TTL attribute is in the
# past (a Number of epoch seconds, not over five years back), from a file (--ttl-attribute) and
# from a table, also killed and resumed under --state with small Scan pages. dynalite answers
# DescribeTimeToLive with DISABLED, which --skip-expired without --ttl-attribute refuses, saying
# so. Kinesis records as Firehose leaves them in S3 (gzip objects under a dated prefix) read from
# s3:// as from the local file.
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
now=$(date +%s)

create() { # TABLE: a table keyed by id (S)
    ddb_call CreateTable '{"TableName":"'"$1"'","AttributeDefinitions":[{"AttributeName":"id",
        "AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
        "BillingMode":"PAY_PER_REQUEST"}' >/dev/null
    for _ in $(seq 1 50); do [ "$(table_status "$1")" = ACTIVE ] && return; sleep 0.1; done
    fail "table $1 is not ACTIVE"
}
# summary_number FILE KEY: a top-level number of a --summary JSON file
summary_number() { sed -n 's/.*"'"$2"'":\([0-9]*\).*/\1/p' "$1"; }

# -- a Lambda event: puts and deletes, in order ---------------------------------------------------
create events
rec() { # NAME ID BODY
    printf '{"eventID":"%s","eventName":"%s","eventVersion":"1.1","eventSource":"aws:dynamodb",' "$2" "$1"
    printf '"awsRegion":"us-east-1","dynamodb":{%s,"StreamViewType":"NEW_AND_OLD_IMAGES"}}' "$3"
}
{
    echo '{"Records": ['
    rec INSERT 1 '"Keys":{"id":{"S":"a"}},"NewImage":{"id":{"S":"a"},"v":{"N":"1"}}'
    echo ,
    rec INSERT 2 '"Keys":{"id":{"S":"b"}},"NewImage":{"id":{"S":"b"},"v":{"N":"1"}}'
    echo ,
    rec MODIFY 3 '"Keys":{"id":{"S":"a"}},"NewImage":{"id":{"S":"a"},"v":{"N":"2"}}'
    echo ,
    rec MODIFY 4 '"Keys":{"id":{"S":"b"}},"NewImage":{"id":{"S":"b"},"v":{"N":"12345678901234567890123456789012345678"}}'
    echo ,
    rec REMOVE 5 '"Keys":{"id":{"S":"a"}}'
    echo ']}'
} >"$tmp/event.json"
run event 0 "$bin" import "$tmp/event.json" --table events "${E[@]}" --summary "$tmp/event.sum"
expect_in "$tmp/event.err" "changes: 2 inserted, 2 modified, 1 removed"
run event-dump 0 "$bin" export --table events --format ddb-json --out "$tmp/ev" "${E[@]}"
[ "$(wc -l <"$tmp/ev/items.json")" = 1 ] || fail "event: the table holds $(wc -l <"$tmp/ev/items.json") items, not 1"
expect_in "$tmp/ev/items.json" '{"Item":{"id":{"S":"b"},"v":{"N":"12345678901234567890123456789012345678"}}}'

# -- --skip-expired on a file, then on the table it was imported into --------------------------------
create ttl
{
    printf '{"Item":{"id":{"S":"expired"},"ttl":{"N":"%s"}}}\n' $((now - 86400))
    printf '{"Item":{"id":{"S":"expired-fraction"},"ttl":{"N":"%s.5"}}}\n' $((now - 60))
    printf '{"Item":{"id":{"S":"expired-exponent"},"ttl":{"N":"%s0E-1"}}}\n' $((now - 3600))
    printf '{"Item":{"id":{"S":"future"},"ttl":{"N":"%s"}}}\n' $((now + 86400))
    printf '{"Item":{"id":{"S":"string"},"ttl":{"S":"%s"}}}\n' $((now - 86400))
    printf '{"Item":{"id":{"S":"missing"}}}\n'
    printf '{"Item":{"id":{"S":"six-years-ago"},"ttl":{"N":"%s"}}}\n' $((now - 6 * 366 * 86400))
    printf '{"Item":{"id":{"S":"milliseconds"},"ttl":{"N":"%s000"}}}\n' $((now - 86400))
} >"$tmp/ttl.json"
run file-skip 0 "$bin" export "$tmp/ttl.json" --out "$tmp/fs" --format ddb-json --skip-expired \
    --ttl-attribute ttl --summary "$tmp/fs.sum"
expect_in "$tmp/file-skip.err" "skipped 3 expired (TTL attribute ttl in the past"
[ "$(summary_number "$tmp/fs.sum" expired)" = 3 ] || fail "file: expired $(summary_number "$tmp/fs.sum" expired)"
[ "$(summary_total "$tmp/fs.sum" read)" = 5 ] || fail "file: read $(summary_total "$tmp/fs.sum" read)"
grep -q expired "$tmp/fs/items.json" && fail "file: an expired item was written"
[ "$(wc -l <"$tmp/fs/items.json")" = 5 ] || fail "file: $(wc -l <"$tmp/fs/items.json") items written"
run file-nottl 2 "$bin" export "$tmp/ttl.json" --out "$tmp/fn" --format ddb-json --skip-expired
expect_in "$tmp/file-nottl.err" "--skip-expired on files needs --ttl-attribute NAME"

run import-all 0 "$bin" import "$tmp/ttl.json" --table ttl "${E[@]}"
run table-disabled 2 "$bin" export --table ttl --format ddb-json --out "$tmp/td" --skip-expired "${E[@]}"
expect_in "$tmp/table-disabled.err" "table ttl has Time to Live DISABLED"
run table-skip 0 "$bin" export --table ttl --format ddb-json --out "$tmp/ts" --skip-expired \
    --ttl-attribute ttl --segments 2 --page-size 1 --state "$tmp/ts.state" \
    --checkpoint-interval 0 --summary "$tmp/ts.sum" "${E[@]}"
[ "$(summary_number "$tmp/ts.sum" expired)" = 3 ] || fail "table: expired $(summary_number "$tmp/ts.sum" expired)"
[ "$(summary_total "$tmp/ts.sum" not_done)" = 0 ] || fail "table: not done"
expect_in "$tmp/ts.sum" '"complete":true'
same_items table-skip "$tmp/fs/items.json" -- "$tmp/ts/items.json"

# -- killed and resumed: the items left out are settled with their Scan page, so a resume starts
# after what was written, neither again nor short, and counts those left out before the kill ----
create many
for i in $(seq 1 2000); do
    printf '{"Item":{"id":{"S":"i%04d"},"ttl":{"N":"%s"}}}\n' "$i" $((i % 3 ? now + 86400 : now - 86400))
done >"$tmp/many.json"
run import-many 0 "$bin" import "$tmp/many.json" --table many "${E[@]}"
K=(export --table many --segments 1 --page-size 5 --format ddb-json --skip-expired --ttl-attribute ttl)
run many-full 0 "$bin" "${K[@]}" --out "$tmp/many-full" "${E[@]}"
killed=0
last=none
for round in 1 2; do
    resume=""
    [ -f "$tmp/m.state" ] && resume=--resume
    "$bin" "${K[@]}" --out "$tmp/many-part" "${E[@]}" --state "$tmp/m.state" \
        --checkpoint-interval 0 $resume --quiet --summary "$tmp/m.sum" 2>>"$tmp/m.err" &
    pid=$!
    if p=$(kill_after_progress "$pid" "$tmp/m.state" "$last"); then
        killed=$((killed + 1))
        last=$p
    fi
    wait "$pid" 2>/dev/null
done
[ "$killed" -ge 1 ] || fail "many: never killed"
grep -q '"complete":true' "$tmp/m.state" ||
    run many-resume 0 "$bin" "${K[@]}" --out "$tmp/many-part" "${E[@]}" --state "$tmp/m.state" \
        --resume --summary "$tmp/m.sum"
[ "$(wc -l <"$tmp/many-full/items.json")" = 1334 ] || fail "many: $(wc -l <"$tmp/many-full/items.json") items, not 1334"
# the items left out before the kill are counted too: the state keeps them
[ "$(summary_number "$tmp/m.sum" expired)" = 666 ] ||
    fail "many: $(summary_number "$tmp/m.sum" expired) expired counted after the resume, not 666"
cmp -s "$tmp/many-full/items.json" "$tmp/many-part/items.json" ||
    fail "many: the resumed export differs from the uninterrupted one ($(wc -l <"$tmp/many-part/items.json") items)"

# -- stream records imported, killed and resumed: applied once each, in order, and the removals by
# Time to Live before the kill still counted ------------------------------------------------------
create kin
for i in $(seq 1 2400); do
    if [ $((i % 3)) = 0 ]; then
        printf '{"eventID":"%s","eventName":"REMOVE","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},"dynamodb":{"Keys":{"id":{"S":"k%s"}}}}\n' "$i" $((i - 1))
    else
        printf '{"eventID":"%s","eventName":"INSERT","dynamodb":{"Keys":{"id":{"S":"k%s"}},"NewImage":{"id":{"S":"k%s"},"n":{"N":"%s"}}}}\n' "$i" "$i" "$i" "$i"
    fi
done >"$tmp/kin.json"
killed=0
last=none
for round in 1 2; do
    resume=""
    [ -f "$tmp/k.state" ] && resume=--resume
    "$bin" import "$tmp/kin.json" --table kin "${E[@]}" --state "$tmp/k.state" \
        --checkpoint-interval 0 $resume --quiet --summary "$tmp/k.sum" 2>>"$tmp/k.err" &
    pid=$!
    if p=$(kill_after_progress "$pid" "$tmp/k.state" "$last"); then
        killed=$((killed + 1))
        last=$p
    fi
    wait "$pid" 2>/dev/null
done
[ "$killed" -ge 1 ] || fail "kin: never killed"
grep -q '"complete":true' "$tmp/k.state" ||
    run kin-resume 0 "$bin" import "$tmp/kin.json" --table kin "${E[@]}" --state "$tmp/k.state" \
        --resume --summary "$tmp/k.sum"
[ "$(summary_number "$tmp/k.sum" removed_by_ttl)" = 800 ] ||
    fail "kin: $(summary_number "$tmp/k.sum" removed_by_ttl) removals by TTL counted, not 800"
run kin-dump 0 "$bin" export --table kin --format ddb-json --out "$tmp/kd" "${E[@]}"
[ "$(wc -l <"$tmp/kd/items.json")" = 800 ] || fail "kin: $(wc -l <"$tmp/kd/items.json") items left, not 800"
grep -q '"k1"' "$tmp/kd/items.json" || fail "kin: k1 was put and never removed, yet it is gone"
grep -q '"k2"' "$tmp/kd/items.json" && fail "kin: k2 was removed after it was put, yet it is there"

# -- Kinesis records from s3://, as Firehose delivers them -------------------------------------------
command -v aws >/dev/null || { echo "the AWS CLI is not installed (scripts/install-deps.sh)" >&2; exit 1; }
start_s3 lake
kin="$root/tests/golden/cases/streams-kinesis-firehose/music-changes.json.gz"
aws --endpoint-url "$s3" s3 cp --quiet "$kin" \
    s3://lake/music/2021/11/17/22/music-stream-1-2021-11-17-22-47-04-0f3d2a1b.gz || fail "upload"
run kinesis-local 0 "$bin" export "$kin" --out "$tmp/kl" --format ddb-json --max-rejects 2
run kinesis-s3 0 "$bin" export s3://lake/music/ --out "$tmp/ks" --format ddb-json --max-rejects 2
expect_in "$tmp/kinesis-s3.err" "changes: 2 inserted, 1 modified, 2 removed (1 by Time to Live)"
for f in items.json deletes.json; do
    cmp -s "$tmp/kl/$f" "$tmp/ks/$f" || fail "kinesis: $f from s3:// differs from the local file's"
done

finish
