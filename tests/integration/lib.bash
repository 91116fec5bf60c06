# Shared setup for the integration tests (sourced): a dynalite server in memory on a free
# loopback port, fake credentials (dynalite does not check signatures), helpers.
set -u
bin=$1
root=${DDB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tools=${DDB_TOOLS:-$(dirname "$bin")}
canon="$tools/ddbpipe-canon"
shared="$root/../shared/testdata"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddbpipe-it.XXXXXX")
export AWS_ACCESS_KEY_ID=AKIDEXAMPLETESTONLY AWS_SECRET_ACCESS_KEY=test-secret-not-real
export AWS_REGION=us-east-1
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB
# The runner's own CA settings (some machines set AWS_CA_BUNDLE) must not decide a test.
unset AWS_CA_BUNDLE
export AWS_CONFIG_FILE="$tmp/no-config" AWS_SHARED_CREDENTIALS_FILE="$tmp/no-credentials"
# Never probe the real instance metadata address: tests only touch 127.0.0.1.
export AWS_EC2_METADATA_DISABLED=true
unset AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_ARN AWS_CONTAINER_CREDENTIALS_RELATIVE_URI \
    AWS_CONTAINER_CREDENTIALS_FULL_URI

cleanup() {
    [ -n "${KEEP_TMP:-}" ] && { echo "kept $tmp" >&2; return; }
    [ -n "${fault_pid:-}" ] && kill "$fault_pid" 2>/dev/null
    [ -n "${s3_pid:-}" ] && kill "$s3_pid" 2>/dev/null
    "$root/scripts/dynalite.sh" stop "$tmp/dynalite" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -d "$root/node_modules/dynalite" ]; then
    echo "dynalite is not installed: run npm ci (scripts/install-deps.sh does)" >&2
    exit 1
fi
# Tables take time to become ACTIVE, as real ones do (a scripted create-table then import must
# wait for it): dynalite creates, updates and deletes tables in DYNALITE_TABLE_MS.
export DYNALITE_TABLE_MS=${DYNALITE_TABLE_MS:-500}
# DYNALITE_OWNER_PID goes to dynalite.sh's environment, so a driver killed with SIGKILL (or one
# run with KEEP_TMP, whose cleanup leaves the server) leaves no dynalite behind. (Written before
# `endpoint=` it was only a variable of this shell, and no server had the watch.)
endpoint=$(DYNALITE_OWNER_PID=$$ "$root/scripts/dynalite.sh" start "$tmp/dynalite") || {
    echo "cannot start dynalite" >&2
    exit 1
}
tr '\0' ' ' <"/proc/$(cat "$tmp/dynalite/pid")/cmdline" | grep -q -- "--owner-pid $$ " || {
    echo "dynalite does not watch this test's pid (--owner-pid $$)" >&2
    exit 1
}

# summary_total FILE FIELD: a number from the total row of a --summary JSON file
summary_total() {
    sed -n 's/.*"total":{[^}]*"'"$2"'":\([0-9]*\).*/\1/p' "$1"
}

# same_items NAME A... -- B...: the two sets of DynamoDB JSON files hold the same items
same_items() {
    local name=$1
    shift
    local left=() right=() side=left
    for f in "$@"; do
        if [ "$f" = -- ]; then side=right; continue; fi
        if [ $side = left ]; then left+=("$f"); else right+=("$f"); fi
    done
    "$canon" "${left[@]}" | LC_ALL=C sort >"$tmp/$name.a"
    "$canon" "${right[@]}" | LC_ALL=C sort >"$tmp/$name.b"
    if ! cmp -s "$tmp/$name.a" "$tmp/$name.b"; then
        fail "$name: item sets differ ($(wc -l <"$tmp/$name.a") vs $(wc -l <"$tmp/$name.b") items)"
        diff "$tmp/$name.a" "$tmp/$name.b" | head -6 | cut -c1-300 >&2
        return 1
    fi
}

# ddb_call OPERATION JSON: one raw DynamoDB request to dynalite, the way another client (a
# script running `aws dynamodb create-table`) would send it; prints the response body.
ddb_call() {
    curl -s --max-time 10 -H 'Content-Type: application/x-amz-json-1.0' \
        -H "X-Amz-Target: DynamoDB_20120810.$1" -H 'X-Amz-Date: 20240101T000000Z' \
        -H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETESTONLY/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000' \
        --data "$2" "$endpoint/"
}

# table_status TABLE: its TableStatus as DescribeTable says it
table_status() {
    ddb_call DescribeTable "{\"TableName\":\"$1\"}" | sed -n 's/.*"TableStatus":"\([A-Z_]*\)".*/\1/p'
}

# start_dynamodb_local: AWS's DynamoDB Local (scripts/dynamodb-local.sh, in memory) on a free
# loopback port, for what dynalite lacks (Streams, ConsumedCapacity per index); sets ddbl (its
# URL) and stops it at exit with the rest.
start_dynamodb_local() {
    command -v java >/dev/null 2>&1 || { echo "no Java runtime (default-jre-headless)" >&2; exit 1; }
    ddbl=$(DDBLOCAL_OWNER_PID=$$ "$root/scripts/dynamodb-local.sh" start "$tmp/ddblocal") || {
        echo "cannot start DynamoDB Local" >&2
        exit 1
    }
    trap '"$root/scripts/dynamodb-local.sh" stop "$tmp/ddblocal" >/dev/null 2>&1; cleanup' EXIT
}

# start_s3 BUCKET[:REGION]...: s3rver behind tests/s3-server/s3-server.js on a free loopback
# port, checking SigV4 with the test keys; sets s3 (its URL, also AWS_ENDPOINT_URL_S3), s3_pid
# (stopped by cleanup) and s3rver_port (s3rver itself, behind the front).
start_s3() {
    local args=() b
    [ -d "$root/node_modules/s3rver" ] || { echo "s3rver is not installed: run npm ci" >&2; exit 1; }
    for b in "$@"; do args+=(--bucket "$b"); done
    mkdir -p "$tmp/s3store"
    node "$root/tests/s3-server/s3-server.js" --dir "$tmp/s3store" --port-file "$tmp/s3port" \
        --key "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "${args[@]}" --owner-pid $$ --quiet \
        >"$tmp/s3.log" 2>&1 &
    s3_pid=$!
    for _ in $(seq 1 100); do [ -s "$tmp/s3port" ] && break; sleep 0.1; done
    s3="http://127.0.0.1:$(cat "$tmp/s3port")"
    export AWS_ENDPOINT_URL_S3="$s3"
    s3rver_port=$(curl -s "$s3/__info" | sed -n 's/.*"s3rverPort":\([0-9]*\).*/\1/p')
}

. "$root/tests/scripts/checks.bash"
