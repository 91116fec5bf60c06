#!/usr/bin/env bash
# migrate --live against AWS's DynamoDB Local: how fast the stream is replayed, and how far the
# target trails the source while an application writes at a steady rate.
#
#   bench/live.sh [BACKLOG] [RATE] [SECONDS]
#       BACKLOG  changes written while the migration is stopped, then replayed (default 20000)
#       RATE     changes per second the application writes during the lag run (default 1000)
#       SECONDS  how long it writes (default 20; 0: the catch-up alone, as bench/run.sh runs it)
#
# 1. catch-up: the migration is started on an empty table and stopped (the position is saved),
#    BACKLOG new items are written with BatchWriteItem, and `--resume --stop-when-idle 1`
#    replays them: changes per second (idle second excluded) and CPU (user + system) per change.
# 2. lag: the migration follows while tests/integration/live/app.js churns at RATE (puts,
#    moves, updates, deletes; 8 writers) and a probe writes a new item every 200 ms and times
#    how long it takes to show in the target: median, 95th percentile and largest delay. The
#    application's achieved rate is printed too: on a small machine DynamoDB Local itself may not
#    take RATE. (Its ApproximateCreationDateTime is rounded to the minute, so ddbpipe's own lag
#    figure means little there; the probe measures what a reader of the target sees.)
#
# Uses build/ddbpipe (build it first; DDBPIPE=path for another), node_modules (npm ci) and Java.
# Only 127.0.0.1 is touched.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${DDBPIPE:-$root/build/ddbpipe}"
backlog="${1:-20000}"
rate="${2:-1000}"
secs="${3:-20}"
here="$root/tests/integration/live"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddbpipe-livebench.XXXXXX")
trap '"$root/scripts/dynamodb-local.sh" stop "$tmp/ddbl" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

export AWS_ACCESS_KEY_ID=AKIDEXAMPLETESTONLY AWS_SECRET_ACCESS_KEY=test-secret-not-real
export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true NODE_NO_WARNINGS=1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB
url=$(DDBLOCAL_OWNER_PID=$$ "$root/scripts/dynamodb-local.sh" start "$tmp/ddbl")
app() { node "$here/app.js" "$1" --endpoint "$url" "${@:2}"; }
M=(--mapping "$here/source.json" --to-mapping "$here/target.json" --endpoint-url "$url")

# cpu_of FILE: user + system seconds from a `time -f '%e %U %S'` line
cpu_of() { awk '{print $2 + $3}' "$1"; }
wall_of() { awk '{print $1}' "$1"; }

# -- 1. catch-up throughput ---------------------------------------------------------------------
app create --table Backlog
# The targets are made from the target mapping, without a Stream: DynamoDB
# Local writes to a table with a Stream about five times slower (5,000 puts
# of this backlog: 26.0 s against 4.8 s), which the catch-up would measure
# instead of ddbpipe (migrate --create-table from a table copies its Stream).
"$bin" create-table --mapping "$here/target.json" --table BacklogTarget --endpoint-url "$url" >/dev/null
/usr/bin/time -f '%e %U %S' -o "$tmp/t0" "$bin" migrate --live --table Backlog "${M[@]}" \
    --to-table BacklogTarget --state "$tmp/b.state" --stop-when-idle 1 --quiet
app burst --table Backlog --count "$backlog"
/usr/bin/time -f '%e %U %S' -o "$tmp/t1" "$bin" migrate --live --table Backlog "${M[@]}" \
    --to-table BacklogTarget --state "$tmp/b.state" --resume --stop-when-idle 1 2>"$tmp/b.err"
grep "changes applied" "$tmp/b.err" | sed 's/^ddbpipe: //'
awk -v n="$backlog" -v w="$(wall_of "$tmp/t1")" -v c="$(cpu_of "$tmp/t1")" 'BEGIN {
    printf "catch-up: %d changes in %.2f s (less 1 s idle): %.0f changes/s, %.1f us CPU per change\n",
        n, w, n / (w - 1), c * 1e6 / n }'

[ "$secs" = 0 ] && exit 0

# -- 2. lag at a steady write rate --------------------------------------------------------------
app create --table Steady
app seed --table Steady --users 100
"$bin" create-table --mapping "$here/target.json" --table SteadyTarget --endpoint-url "$url" >/dev/null
"$bin" migrate --live --table Steady "${M[@]}" --to-table SteadyTarget \
    --quiet >"$tmp/s.out" 2>"$tmp/s.err" &
mig=$!
sleep 3 # the copy of 1000 items
start=$(date +%s.%N)
app churn --table Steady --users 100 --seconds "$secs" --rate "$rate" --concurrency 8 >"$tmp/app.out" &
churn=$!
app probe --table Steady --target SteadyTarget --seconds "$secs"
wait "$churn"
end=$(date +%s.%N)
cpu_before=$(awk '{print $14 + $15}' "/proc/$mig/stat")
kill -INT "$mig"
wait "$mig" || true
changes=$(sed -n 's/^app: \([0-9]*\) changes.*/\1/p' "$tmp/app.out")
awk -v n="$changes" -v s="$start" -v e="$end" -v r="$rate" 'BEGIN {
    printf "application: %d changes in %.1f s: %.0f changes/s (asked for %d)\n", n, e - s, n / (e - s), r }'
awk -v n="$changes" -v t="$cpu_before" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    printf "ddbpipe while following: %.1f us CPU per change (copy included)\n", t / hz * 1e6 / n }'
