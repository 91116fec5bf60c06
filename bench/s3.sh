#!/usr/bin/env bash
# S3 read throughput: ddbpipe reading objects from a local S3 (s3rver behind
# tests/s3-server/s3-server.js, which verifies every signature) against `aws s3 cp` of the same
# objects, and against ddbpipe reading local copies (the parsing floor).
#
#   bench/s3.sh [COPIES]     COPIES of the shared real export's 4 data files (default 8: ~35 MB
#                            of gzip, ~400 MB of DynamoDB JSON)
#
# Prints, for each: wall seconds and MB/s of the objects' (compressed) bytes. Uses build/ddbpipe
# (build it first); needs node_modules (npm ci) and the AWS CLI. Only 127.0.0.1 is touched.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${DDBPIPE:-$root/build/ddbpipe}"
copies="${1:-8}"
data="$root/../shared/testdata/aws-export/01716790307109-5f9d6aaa/data"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddbpipe-s3bench.XXXXXX")
trap 'kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT

export AWS_ACCESS_KEY_ID=AKIDBENCHONLY AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB
mkdir -p "$tmp/store" "$tmp/objs"
node "$root/tests/s3-server/s3-server.js" --dir "$tmp/store" --port-file "$tmp/port" \
    --key "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" --bucket bench --owner-pid $$ --quiet \
    >"$tmp/server.log" 2>&1 &
srv=$!
for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
export AWS_ENDPOINT_URL_S3="http://127.0.0.1:$(cat "$tmp/port")"

# The full export's data files, COPIES times, as plain DynamoDB JSON lines objects.
n=0
for c in $(seq 1 "$copies"); do
    for f in "$data"/*.json.gz; do
        cp "$f" "$tmp/objs/part-$(printf '%04d' $n).json.gz"
        n=$((n + 1))
    done
done
bytes=$(du -cb "$tmp"/objs/*.json.gz | tail -1 | cut -f1)
aws --endpoint-url "$AWS_ENDPOINT_URL_S3" s3 cp --quiet --recursive "$tmp/objs" s3://bench/objs/
echo "objects: $n, $((bytes / 1000000)) MB of gzip"

timeit() {
    local name=$1 t0 t1 log
    shift
    log=$(echo "$name" | tr -c 'a-z0-9\n' '_')
    t0=$(date +%s.%N)
    "$@" >"$tmp/$log.out" 2>"$tmp/$log.err" || { echo "$name failed:"; tail -5 "$tmp/$log.err"; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v by="$bytes" -v n="$name" \
        'BEGIN { s = b - a; printf "%-40s %7.2f s  %8.1f MB/s\n", n, s, by / s / 1e6 }'
}

timeit "aws s3 cp --recursive (to disk)" aws --endpoint-url "$AWS_ENDPOINT_URL_S3" s3 cp --quiet \
    --recursive s3://bench/objs/ "$tmp/down/"
timeit "ddbpipe validate s3://bench/objs/" "$bin" validate s3://bench/objs/ --quiet --progress off
timeit "ddbpipe validate (local copies)" "$bin" validate "$tmp"/objs/*.json.gz --quiet --progress off
