#!/usr/bin/env bash
# The managed paths: export --via-export (DynamoDB's ExportTableToPointInTime) and import
# --via-import (its ImportTable), against tests/control-server (DynamoDB's export and import
# control plane in front of dynalite, writing and reading objects in s3rver behind
# tests/s3-server). Proves: a table exported through S3 gives the same files as the local run of
# the export the server wrote (full and incremental); point-in-time recovery off is one message
# whose fix (run with the AWS CLI) works; a table that does not exist, a missing bucket, a FAILED
# export and a window DynamoDB refuses are one clear message each; an export interrupted while
# waiting (SIGINT, then SIGKILL) and resumed starts no second export and reads the same one, and
# one killed before it saved the export's ARN asks again with the same ClientToken and gets the
# same export; a new run under a finished run's state file is resumable in turn; an import through
# S3 of the favorites sample creates the table with its global indexes (its LSIs refused unless
# asked to go without) holding the items a BatchWriteItem import writes; errors ImportTable counts
# are reported with its log group and exit 1; items sharing a key count as written, the last one
# kept; an existing table or a prefix holding objects is refused before anything is uploaded; an
# import interrupted while waiting (and killed before its ARN was saved) and resumed starts no
# second import; the server counts the lines it cannot load, as AWS does; --sse and
# --sse-kms-key-id become the export's own S3SseAlgorithm and S3SseKmsKeyId.
. "$(dirname "$0")/lib.bash"
command -v aws >/dev/null || { echo "the AWS CLI is not installed (scripts/install-deps.sh)" >&2; exit 1; }
export_dir="$shared/aws-export"
full=01716790307109-5f9d6aaa
incr=01716791487000-6ddcf8cf
fav_export="$root/samples/favorites/export/AWSDynamoDB/01717200000000-076bc319"
fav_map="$root/formats/favorites.json"
export AWS_DEFAULT_REGION=$AWS_REGION # the AWS CLI (v1) reads only this one

start_s3 data
node "$root/tests/control-server/control-server.js" --dynamodb "$endpoint" \
    --s3 "http://127.0.0.1:$s3rver_port" --export-data "$export_dir" \
    --key "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" --export-polls 3 --import-polls 3 \
    --port-file "$tmp/ctlport" --owner-pid $$ --quiet >"$tmp/ctl.log" 2>&1 &
ctl_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/ctlport" ] && break; sleep 0.1; done
ctl="http://127.0.0.1:$(cat "$tmp/ctlport")"
trap 'kill $ctl_pid 2>/dev/null; cleanup' EXIT
awsd() { aws --endpoint-url "$ctl" dynamodb "$@"; }
awss3() { aws --endpoint-url "$s3" s3 "$@"; }
stat_of() { curl -s "$ctl/__stats" | grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2; }
control() { curl -s -XPOST "$ctl/__control" -d "$1" >/dev/null; }
# the control calls go to the control server (all others pass through it to dynalite)
ddp() { "$bin" "$@" --endpoint-url "$ctl"; }

awsd create-table --table-name unicorn_activities --billing-mode PAY_PER_REQUEST \
    --attribute-definitions AttributeName=name,AttributeType=S \
    --key-schema AttributeName=name,KeyType=HASH >/dev/null || fail "create the table"
for _ in $(seq 1 50); do [ "$(table_status unicorn_activities)" = ACTIVE ] && break; sleep 0.1; done
run local-full 0 "$bin" export "$export_dir/$full" --out "$tmp/local/full"
run local-incr 0 "$bin" export "$export_dir/$incr" --out "$tmp/local/incr"

# -- point-in-time recovery off: one message with the fix, and the fix works ---------------------
run pitr 2 ddp export --table unicorn_activities --via-export s3://data/exp/ --out "$tmp/pitr"
expect_in "$tmp/pitr.err" "point-in-time recovery turned off"
expect_in "$tmp/pitr.err" "PointInTimeRecoveryUnavailableException"
[ "$(grep -c 'error:' "$tmp/pitr.err")" = 1 ] || fail "pitr: more than one message"
[ "$(stat_of exports)" = 0 ] || fail "pitr: an export was made"
fix=$(grep -o 'aws dynamodb update-continuous-backups [^(]*' "$tmp/pitr.err" | sed 's/ *$//')
[ -n "$fix" ] || fail "pitr: the message names no command"
# shellcheck disable=SC2086 # the command as the message gives it
${fix/aws dynamodb/aws --endpoint-url $ctl dynamodb} >/dev/null || fail "pitr: the fix ($fix) failed"

# -- a full export through S3 equals the local run of what DynamoDB exported ---------------------
run full 0 ddp export --table unicorn_activities --via-export s3://data/exp/ --out "$tmp/full"
diff -r -x summary.json "$tmp/local/full" "$tmp/full" >/dev/null ||
    fail "full export through S3 differs from the local run"
expect_in "$tmp/full.err" "COMPLETED after"
expect_in "$tmp/full.err" "133199 items"
expect_in "$tmp/full.err" "read from s3://data/exp/AWSDynamoDB/"
[ "$(stat_of DescribeExport)" -ge 3 ] || fail "full: the export was not polled while IN_PROGRESS"
folder=$(grep -o 's3://data/exp/AWSDynamoDB/[^/]*/' "$tmp/full.err" | head -1)
awss3 ls "${folder}" | grep -q manifest-summary.json || fail "full: no manifest in $folder"
# Polled while IN_PROGRESS: shown above. The jobs that follow stay IN_PROGRESS for one poll only
# (the client's pauses grow from 1 s: three polls cost 8 s an export), but for those interrupted
# while waiting, which need the wait.
control '{"exportPolls":1,"importPolls":1}'

# -- one clear message each: no table, no bucket, a FAILED export, a window out of bounds ---------
run notable 2 ddp export --table nosuch --via-export s3://data/exp/ --out "$tmp/nt"
expect_in "$tmp/notable.err" "table nosuch does not exist"
run nobucket 2 ddp export --table unicorn_activities --via-export s3://nosuchbucket/x/ --out "$tmp/nb"
expect_in "$tmp/nobucket.err" "bucket nosuchbucket does not exist"
n=$(stat_of exports)
control '{"failNextExport":{"code":"S3AccessDenied","message":"Access Denied"}}'
run failed 5 ddp export --table unicorn_activities --via-export s3://data/exp/ --out "$tmp/failed"
expect_in "$tmp/failed.err" "FAILED: S3AccessDenied: Access Denied"
expect_in "$tmp/failed.err" "s3:PutObject"
[ ! -e "$tmp/failed" ] || [ -z "$(ls "$tmp/failed")" ] || fail "failed: files written"
now=$(date +%s)
run shortwindow 2 ddp export --table unicorn_activities --via-export s3://data/exp/ \
    --since $((now - 600)) --out "$tmp/sw"
expect_in "$tmp/shortwindow.err" "at least 15 minutes and at most 24 hours"
[ "$(stat_of exports)" = $((n + 1)) ] || fail "refused runs made exports"

# -- incremental: the same as the local run of the incremental export ----------------------------
control "{\"pitrSince\":{\"unicorn_activities\":$((now - 7200))}}"
# The server holds the window to DynamoDB's bounds itself.
arn=$(awsd describe-table --table-name unicorn_activities --query Table.TableArn --output text)
awsd export-table-to-point-in-time --table-arn "$arn" --s3-bucket data --export-type \
    INCREMENTAL_EXPORT --incremental-export-specification \
    "ExportFromTime=$((now - 900)),ExportToTime=$((now - 600))" >/dev/null 2>"$tmp/aws-window.err" &&
    fail "server: a 5-minute window was accepted"
expect_in "$tmp/aws-window.err" "at least 15 minutes"

run incr 0 ddp export --table unicorn_activities --via-export s3://data/exp --since $((now - 3600)) \
    --until "$(date -u -d @$((now - 1800)) +%Y-%m-%dT%H:%M:%SZ)" --out "$tmp/incr"
diff -r -x summary.json "$tmp/local/incr" "$tmp/incr" >/dev/null ||
    fail "incremental export through S3 differs from the local run"
expect_in "$tmp/incr.err" "INCREMENTAL_EXPORT"

# a full export as of a time inside the recovery window; one before it is refused by DynamoDB
asof=$((now - 120))
run asof 0 ddp export --table unicorn_activities --via-export s3://data/exp/ --until "$asof" \
    --out "$tmp/asof"
expect_in "$tmp/asof.err" "FULL_EXPORT as of $(date -u -d @$asof +%Y-%m-%dT%H:%M:%SZ)"
diff -r -x summary.json "$tmp/local/full" "$tmp/asof" >/dev/null || fail "as-of export differs"
run tooearly 2 ddp export --table unicorn_activities --via-export s3://data/exp/ \
    --until $((now - 9000)) --out "$tmp/tooearly"
expect_in "$tmp/tooearly.err" "outside table unicorn_activities's point-in-time recovery window"
expect_in "$tmp/tooearly.err" "InvalidExportTimeException"

# -- the objects' encryption is asked of the export itself (aws:kms is KMS to the export API) -----
run sse 0 ddp export --table unicorn_activities --via-export s3://data/sse/ --sse aws:kms \
    --sse-kms-key-id alias/exports --out "$tmp/sse"
diff -r -x summary.json "$tmp/local/full" "$tmp/sse" >/dev/null || fail "sse: the export differs"
arn=$(grep -o 'arn:aws:dynamodb:[^ ]*/export/[0-9a-f-]*' "$tmp/sse.err" | head -1)
[ -n "$arn" ] || fail "sse: no export ARN in the messages"
desc=$(awsd describe-export --export-arn "$arn") || fail "sse: describe-export $arn"
echo "$desc" | grep -q '"S3SseAlgorithm": "KMS"' || fail "sse: not asked for KMS: $desc"
echo "$desc" | grep -q '"S3SseKmsKeyId": "alias/exports"' || fail "sse: not asked for the key: $desc"
run sse-nokms 2 ddp export --table unicorn_activities --via-export s3://data/sse/ \
    --sse-kms-key-id alias/exports --out "$tmp/sse-nokms"
expect_in "$tmp/sse-nokms.err" "needs server-side encryption aws:kms"

# -- interrupted while waiting, then resumed: the same export, never a second -------------------
control '{"exportPolls":3}'
st="$tmp/exp.state"
calls=$(stat_of ExportTableToPointInTime)
made=$(stat_of exports)
"$bin" export --table unicorn_activities --via-export s3://data/exp/ --out "$tmp/resumed" \
    --state "$st" --endpoint-url "$ctl" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
for _ in $(seq 1 200); do grep -q '"arn"' "$st" 2>/dev/null && break; sleep 0.05; done
sleep 0.5
kill -INT "$pid"
wait "$pid"
code=$?
[ "$code" = 130 ] || fail "interrupted export: exit $code, expected 130"
expect_in "$tmp/int.err" "it goes on in AWS"
expect_in "$tmp/int.err" "ddbpipe export s3://data/exp/AWSDynamoDB/"
expect_in "$tmp/int.err" "--resume"
grep -q '"export_arn"\|"arn":"arn:aws:dynamodb' "$st" || fail "interrupted export: no ARN in the state"
# killed outright while waiting again: still the same export
"$bin" export --table unicorn_activities --via-export s3://data/exp/ --out "$tmp/resumed" \
    --state "$st" --resume --endpoint-url "$ctl" >"$tmp/kill.out" 2>"$tmp/kill.err" &
pid=$!
sleep 1
kill -KILL "$pid"
wait "$pid" 2>/dev/null
run resume 0 ddp export --table unicorn_activities --via-export s3://data/exp/ \
    --out "$tmp/resumed" --state "$st" --resume
[ "$(stat_of ExportTableToPointInTime)" = $((calls + 1)) ] ||
    fail "resume: ExportTableToPointInTime called again ($(stat_of ExportTableToPointInTime) calls)"
[ "$(stat_of exports)" = $((made + 1)) ] || fail "resume: a second export was made"
diff -r -x summary.json "$tmp/local/full" "$tmp/resumed" >/dev/null ||
    fail "resumed export differs from the local run"
# the folder the interrupted run named reads the same later
later=$(grep -o 'ddbpipe export s3://data/exp/AWSDynamoDB/[^ ]*' "$tmp/int.err" | cut -d' ' -f3)
run later 0 "$bin" export "$later" --out "$tmp/later"
cmp -s "$tmp/later/items.ndjson" "$tmp/local/full/items.ndjson" || fail "the named folder differs"
run done-already 0 ddp export --table unicorn_activities --via-export s3://data/exp/ \
    --out "$tmp/resumed" --state "$st" --resume
expect_in "$tmp/done-already.err" "nothing to resume"

# a new run under the finished run's state file: its own export, resumable in turn
old_arn=$(grep -o '"arn":"[^"]*"' "$st")
"$bin" export --table unicorn_activities --via-export s3://data/exp/ --out "$tmp/again" \
    --state "$st" --endpoint-url "$ctl" >"$tmp/again1.out" 2>"$tmp/again1.err" &
pid=$!
for _ in $(seq 1 200); do
    a=$(grep -o '"arn":"[^"]*"' "$st" 2>/dev/null)
    [ -n "$a" ] && [ "$a" != "$old_arn" ] && break
    sleep 0.05
done
kill -INT "$pid"
wait "$pid"
code=$?
[ "$code" = 130 ] || fail "again: exit $code, expected 130"
# as if killed between asking and saving the ARN: asked again with the same ClientToken, DynamoDB
# answers with the same export
sed -i 's/,"arn":"[^"]*"//' "$st"
calls=$(stat_of ExportTableToPointInTime)
run again 0 ddp export --table unicorn_activities --via-export s3://data/exp/ --out "$tmp/again" \
    --state "$st" --resume
grep -q "nothing to resume" "$tmp/again.err" && fail "again: the new export was taken for the old run"
[ "$(stat_of exports)" = $((made + 2)) ] || fail "again: not exactly one more export"
[ "$(stat_of ExportTableToPointInTime)" = $((calls + 1)) ] || fail "again: not asked again"
cmp -s "$tmp/again/items.ndjson" "$tmp/local/full/items.ndjson" || fail "again: the output differs"

# -- import through S3: the table with its GSIs, the items of a BatchWriteItem import -----------
run batch 1 ddp import "$fav_export" --mapping "$fav_map" --table fav_batch --create-table \
    --rejects "$tmp/batch.rejects"
run lsi 2 ddp import "$fav_export" --mapping "$fav_map" --table fav_s3 --create-table \
    --via-import s3://data/imp/ --rejects "$tmp/s3.rejects"
expect_in "$tmp/lsi.err" "local secondary indexes (lsiOne, lsiTwo, lsiThree)"
expect_in "$tmp/lsi.err" "--ignore-schema-mismatch"
[ -z "$(awss3 ls s3://data/imp/)" ] || fail "lsi: something was uploaded"
[ "$(stat_of imports)" = 0 ] || fail "lsi: an import was asked for"
run imp 1 ddp import "$fav_export" --mapping "$fav_map" --table fav_s3 --create-table \
    --via-import s3://data/imp/ --rejects "$tmp/s3.rejects" --ignore-schema-mismatch \
    --summary "$tmp/imp.json"
expect_in "$tmp/imp.err" "created without the local secondary indexes"
expect_in "$tmp/imp.err" "319 imported, 0 errors"
awss3 ls s3://data/imp/ | grep -q 'items.json.gz' || fail "imp: no gzip object uploaded"
[ "$(summary_total "$tmp/imp.json" written)" = 319 ] || fail "imp: written is not 319"
cmp -s "$tmp/batch.rejects" "$tmp/s3.rejects" || fail "imp: not the rejects of the BatchWriteItem import"
desc=$(awsd describe-table --table-name fav_s3)
for g in gsiOne gsiTwo; do grep -q "\"IndexName\": \"$g\"" <<<"$desc" || fail "imp: no index $g"; done
grep -q LocalSecondaryIndexes <<<"$desc" && fail "imp: LSIs on a table ImportTable made"
grep -q '"KeyType": "RANGE"' <<<"$desc" || fail "imp: no sort key"
run scan-batch 0 "$bin" export --table fav_batch --format ddb-json --out "$tmp/scan-batch" \
    --endpoint-url "$endpoint"
run scan-s3 0 "$bin" export --table fav_s3 --format ddb-json --out "$tmp/scan-s3" \
    --endpoint-url "$endpoint"
same_items imported "$tmp/scan-batch/items.json" -- "$tmp/scan-s3/items.json"

# -- ImportTable's errors: counted, reported with the log group, exit 1 --------------------------
control '{"importLineFaults":3}'
run imperr 1 ddp import "$root"/samples/favorites/seed/*.csv --mapping "$fav_map" --table fav_err \
    --create-table --via-import s3://data/imperr/ --ignore-schema-mismatch \
    --rejects "$tmp/imperr.rejects" --summary "$tmp/imperr.json"
expect_in "$tmp/imperr.err" "ImportTable could not load 3 of the 118 items uploaded"
expect_in "$tmp/imperr.err" "log-group:/aws-dynamodb/imports"
[ "$(summary_total "$tmp/imperr.json" written)" = 115 ] || fail "imperr: written is not 115"
[ "$(summary_total "$tmp/imperr.json" rejected)" = 3 ] || fail "imperr: rejected is not 3"

# items sharing a key overwrite one another, as BatchWriteItem's do: written, not errors
printf '{"Item":{"pk":{"S":"Tag#u1"},"sk":{"S":"t1"},"n":{"N":"1"}}}\n{"Item":{"pk":{"S":"Tag#u2"},"sk":{"S":"t1"}}}\n{"Item":{"pk":{"S":"Tag#u1"},"sk":{"S":"t1"},"n":{"N":"2"}}}\n' >"$tmp/dups.json"
run dups 0 ddp import "$tmp/dups.json" --mapping "$fav_map" --table fav_dups --create-table \
    --via-import s3://data/dups/ --ignore-schema-mismatch --summary "$tmp/dups.sum"
[ "$(summary_total "$tmp/dups.sum" written)" = 3 ] || fail "dups: written is not 3"
expect_in "$tmp/dups.err" "2 imported, 0 errors"
expect_in "$tmp/dups.err" "1 item uploaded shared its key with a later one"
[ "$(awsd get-item --table-name fav_dups --key '{"pk":{"S":"Tag#u1"},"sk":{"S":"t1"}}' \
    --query Item.n.N --output text)" = 2 ] || fail "dups: the last write of the key is not the one kept"

# -- refused before anything is uploaded: an existing table, a prefix holding objects -----------
run exists 2 ddp import "$root"/samples/favorites/seed/*.csv --mapping "$fav_map" --table fav_s3 \
    --create-table --via-import s3://data/imp2/ --ignore-schema-mismatch
expect_in "$tmp/exists.err" "table fav_s3 exists"
[ -z "$(awss3 ls s3://data/imp2/)" ] || fail "exists: something was uploaded"
run notempty 2 ddp import "$root"/samples/favorites/seed/*.csv --mapping "$fav_map" \
    --table fav_new --create-table --via-import s3://data/imp/ --ignore-schema-mismatch
expect_in "$tmp/notempty.err" "already holds"
[ "$(table_status fav_new)" = "" ] || fail "notempty: a table was created"

# -- an import interrupted while waiting and resumed: no second import --------------------------
control '{"importPolls":3}'
st="$tmp/imp.state"
imports=$(stat_of imports)
"$bin" import "$root"/samples/favorites/seed/*.csv --mapping "$fav_map" --table fav_res \
    --create-table --via-import s3://data/impres/ --ignore-schema-mismatch --state "$st" \
    --endpoint-url "$ctl" >"$tmp/impint.out" 2>"$tmp/impint.err" &
pid=$!
for _ in $(seq 1 200); do grep -q '"arn"' "$st" 2>/dev/null && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
code=$?
[ "$code" = 130 ] || fail "interrupted import: exit $code, expected 130"
expect_in "$tmp/impint.err" "the import goes on in AWS"
# as if killed between ImportTable and saving its ARN: the same ClientToken, the same import
sed -i 's/,"arn":"[^"]*"//' "$st"
asked=$(stat_of ImportTable)
run impresume 0 ddp import "$root"/samples/favorites/seed/*.csv --mapping "$fav_map" \
    --table fav_res --create-table --via-import s3://data/impres/ --ignore-schema-mismatch \
    --state "$st" --resume --summary "$tmp/impres.json"
[ "$(stat_of imports)" = $((imports + 1)) ] || fail "import resume: a second import was made"
[ "$(stat_of ImportTable)" = $((asked + 1)) ] || fail "import resume: ImportTable not asked again"
[ "$(summary_total "$tmp/impres.json" written)" = 118 ] || fail "import resume: written is not 118"
[ "$(awsd scan --table-name fav_res --select COUNT --query Count --output text)" = 118 ] ||
    fail "import resume: the table does not hold the 118 items"

# -- the server counts the lines it cannot load, as ImportTable does ------------------------------
control '{"importPolls":1}'
{
    printf '{"Item":{"pk":{"S":"a"},"sk":{"S":"1"}}}\n'
    printf '{"Item":{"pk":{"S":"b"}}}\n'
    printf 'not json\n'
    printf '{"Item":{"pk":{"N":"1"},"sk":{"S":"1"}}}\n'
    printf '{"Item":{"pk":{"S":"c"},"sk":{"S":"2"}}}\n'
    printf '{"Item":{"pk":{"S":"a"},"sk":{"S":"1"},"again":{"BOOL":true}}}\n'
} | gzip >"$tmp/raw.json.gz"
awss3 cp --quiet "$tmp/raw.json.gz" s3://data/raw/part.json.gz || fail "upload raw lines"
iarn=$(awsd import-table --s3-bucket-source S3Bucket=data,S3KeyPrefix=raw/ --input-format \
    DYNAMODB_JSON --input-compression-type GZIP --table-creation-parameters \
    'TableName=raw,AttributeDefinitions=[{AttributeName=pk,AttributeType=S},{AttributeName=sk,AttributeType=S}],KeySchema=[{AttributeName=pk,KeyType=HASH},{AttributeName=sk,KeyType=RANGE}],BillingMode=PAY_PER_REQUEST' \
    --query ImportTableDescription.ImportArn --output text) || fail "aws import-table"
for _ in $(seq 1 60); do
    d=$(awsd describe-import --import-arn "$iarn")
    grep -q '"ImportStatus": "COMPLETED"' <<<"$d" && break
    sleep 0.5
done
grep -q '"ErrorCount": 3' <<<"$d" || fail "server: 3 bad lines not counted: $d"
grep -q '"ImportedItemCount": 2' <<<"$d" || fail "server: not 2 items imported (one key twice): $d"
grep -q '"ProcessedItemCount": 6' <<<"$d" || fail "server: not 6 lines processed: $d"

finish
