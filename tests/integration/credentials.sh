#!/usr/bin/env bash
# Credentials the way production jobs get them, against the scripted credential services
# (tests/cred-server: STS, the SSO portal, a container endpoint, IMDSv2) and the fault server
# in front of dynalite, whose signature check (--auth) accepts only keys the scripted services
# issued, verifies SigV4 for real and answers ExpiredTokenException / UnrecognizedClientException
# as DynamoDB does. Credentials live 6 seconds. Proves each provider, the precedence order,
# chained roles, STS errors and retries, that no secret is ever printed, and a long import
# (over 30 s, several expiries) with every item written and nothing rejected.
. "$(dirname "$0")/lib.bash"
gen="$tools/ddbpipe-gen"
fav="$root/formats/favorites.json"
acct=111122223333
role() { echo "arn:aws:iam::$acct:role/$1"; }
USER_KEY=AKIAUSERKEY000000001
USER_SECRET="userSecret/with+chars0000000000000000000"

cat >"$tmp/cred.json" <<EOF
{ "lifetimeS": 6, "region": "us-east-1", "account": "$acct",
  "users": { "$USER_KEY": { "secret": "$USER_SECRET", "arn": "arn:aws:iam::$acct:user/ci" } },
  "roles": { "$(role web)": { "webIdentity": true }, "$(role a)": {}, "$(role b)": {},
             "$(role ext)": { "externalId": "the-external-id", "maxSessionS": 7200 },
             "$(role chained)": {} },
  "webTokens": ["jwt-one", "jwt-two"], "expiredWebTokens": ["jwt-expired"],
  "ssoTokens": { "sso-access-token-1": { "123456789012": ["ReadOnly"] } },
  "container": { "path": "/v1/credentials", "token": "container-auth-token-1",
                 "roleArn": "arn:aws:iam::$acct:role/task" },
  "imds": { "role": "ec2-instance-role", "region": "us-west-2", "tokenTtlMaxS": 21600 } }
EOF
start_node() { # start_node NAME SCRIPT ARGS... : sets ${NAME}_pid, waits for the port file
    local name=$1
    shift
    node "$@" --port-file "$tmp/$name.port" --owner-pid $$ --quiet >"$tmp/$name.log" 2>&1 &
    eval "${name}_pid=$!"
    for _ in $(seq 1 100); do [ -s "$tmp/$name.port" ] && break; sleep 0.1; done
    [ -s "$tmp/$name.port" ] || { echo "cannot start $name" >&2; exit 1; }
}
start_node cred "$root/tests/cred-server/cred-server.js" --script "$tmp/cred.json"
cs="http://127.0.0.1:$(cat "$tmp/cred.port")"
start_node fault "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --auth "$cs"
fs="http://127.0.0.1:$(cat "$tmp/fault.port")"
# The same, with a clock 4.5 s ahead: keys look expired to it (1.5 s after they are issued)
# before the client refreshes them (at half their lifetime, 3 s).
start_node skew "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --auth "$cs" \
    --auth-skew-ms 4500
ss="http://127.0.0.1:$(cat "$tmp/skew.port")"
trap 'kill $cred_pid $fault_pid $skew_pid 2>/dev/null; cleanup' EXIT

cred_stat() { curl -s "$cs/__stats" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const o=JSON.parse(s);console.log(($1))})"; }
fault_stat() { curl -s "${2:-$fs}/__stats" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const o=JSON.parse(s);console.log(($1))})"; }
control() { curl -s -XPOST "$cs/__control" -d "$1" >/dev/null; }

# A clean environment per run: no keys, no profile, files under a fake HOME.
home="$tmp/home"
mkdir -p "$home/.aws/sso/cache"
echo jwt-one >"$tmp/web-token"
echo container-auth-token-1 >"$tmp/container-token"
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
export HOME="$home" AWS_CONFIG_FILE="$home/.aws/config" AWS_SHARED_CREDENTIALS_FILE="$home/.aws/credentials"
export AWS_ENDPOINT_URL_STS="$cs" AWS_ENDPOINT_URL_SSO="$cs"
cat >"$home/.aws/credentials" <<EOF
[ci]
aws_access_key_id = $USER_KEY
aws_secret_access_key = $USER_SECRET
EOF
cat >"$home/.aws/config" <<EOF
[profile web]
web_identity_token_file = $tmp/web-token
role_arn = $(role web)
[profile assume]
role_arn = $(role ext)
source_profile = ci
external_id = the-external-id
role_session_name = nightly-export
duration_seconds = 3600
[profile wrong-external-id]
role_arn = $(role ext)
source_profile = ci
external_id = not-it
[profile chain-b]
role_arn = $(role b)
source_profile = chain-a
[profile chain-a]
role_arn = $(role a)
source_profile = ci
[profile chained]
role_arn = $(role chained)
source_profile = web
[profile from-env]
role_arn = $(role a)
credential_source = Environment
[profile from-container]
role_arn = $(role b)
credential_source = EcsContainer
[profile from-imds]
role_arn = $(role a)
credential_source = Ec2InstanceMetadata
[profile sso]
sso_session = corp
sso_account_id = 123456789012
sso_role_name = ReadOnly
[profile sso-legacy]
sso_start_url = https://corp.awsapps.com/start
sso_region = eu-west-1
sso_account_id = 123456789012
sso_role_name = ReadOnly
[profile sso-denied]
sso_session = corp
sso_account_id = 999999999999
sso_role_name = Admin
[sso-session corp]
sso_start_url = https://corp.awsapps.com/start
sso_region = eu-west-1
[profile mfa]
role_arn = $(role a)
source_profile = ci
mfa_serial = arn:aws:iam::$acct:mfa/ci
EOF
sso_cache() { # sso_cache KEY TOKEN EXPIRES
    local f
    f="$home/.aws/sso/cache/$(printf %s "$1" | sha1sum | cut -c1-40).json"
    printf '{"startUrl":"https://corp.awsapps.com/start","region":"eu-west-1","accessToken":"%s","expiresAt":"%s"}' \
        "$2" "$3" >"$f"
}
future=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
past=$(date -u -d '-1 hour' +%Y-%m-%dT%H:%M:%SZ)
sso_cache corp sso-access-token-1 "$future"
sso_cache https://corp.awsapps.com/start sso-access-token-1 "$future"

run create 0 env AWS_ACCESS_KEY_ID=AKIDEXAMPLETESTONLY AWS_SECRET_ACCESS_KEY=x \
    "$bin" create-table --mapping "$fav" --table creds --endpoint-url "$endpoint"

# describe NAME EXIT SOURCE-PATTERN [ENV...] -- [ARGS...]: a DescribeTable through the
# checking fault server; the verbose line must name the provider.
describe() {
    local name=$1 want=$2 pattern=$3
    shift 3
    local envs=() args=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    args=("$@")
    run "$name" "$want" env "${envs[@]}" "$bin" describe --table creds --endpoint-url "$fs" \
        --verbose "${args[@]}" || return 1
    if [ "$want" = 0 ] && ! grep -q "ddbpipe: credentials: .*from $pattern" "$tmp/$name.err"; then
        fail "$name: provider not named as '$pattern'"
        grep "credentials:" "$tmp/$name.err" | head -2 >&2
    fi
    if [ "$want" != 0 ] && ! grep -q -- "$pattern" "$tmp/$name.err"; then
        fail "$name: '$pattern' not in the error"
        tail -3 "$tmp/$name.err" >&2
    fi
}

# -- each provider --------------------------------------------------------------------------
describe env 0 "environment variables" AWS_ACCESS_KEY_ID=$USER_KEY "AWS_SECRET_ACCESS_KEY=$USER_SECRET"
describe file 0 "credentials file $home/.aws/credentials \[ci\]" AWS_PROFILE=ci
describe web-env 0 "web identity role $(role web) (token file $tmp/web-token, from AWS_WEB_IDENTITY_TOKEN_FILE)" \
    AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token" AWS_ROLE_ARN="$(role web)" AWS_ROLE_SESSION_NAME=gha-run-7
[ "$(cred_stat 'o.sts.sessionNames.includes("gha-run-7")')" = true ] || fail "web-env: AWS_ROLE_SESSION_NAME not sent"
describe web-profile 0 "web identity role $(role web) (token file $tmp/web-token, from profile 'web')" -- --profile web
[ "$(cred_stat o.sts.signedWebIdentity)" = 0 ] || fail "AssumeRoleWithWebIdentity must be unsigned"
describe assume 0 "role $(role ext) (profile 'assume' of $home/.aws/config) with credentials from credentials file" \
    AWS_PROFILE=assume
[ "$(cred_stat 'JSON.stringify(o.sts.callers.find(c=>c.role.endsWith("/ext")))')" = \
  "{\"role\":\"$(role ext)\",\"callerArn\":\"arn:aws:iam::$acct:user/ci\",\"callerKey\":\"$USER_KEY\"}" ] ||
    fail "assume: STS AssumeRole not signed with the source profile's key"
[ "$(cred_stat 'o.sts.externalIds.includes("the-external-id") && o.sts.sessionNames.includes("nightly-export") && o.sts.durations.includes("3600")')" = true ] ||
    fail "assume: external_id, role_session_name or duration_seconds not sent"
describe chain 0 "role $(role b) (profile 'chain-b' of $home/.aws/config) with credentials from role $(role a)" \
    AWS_PROFILE=chain-b
# Role b was assumed with the key STS issued for role a, itself assumed with the user's key.
node -e "
const o=$(curl -s "$cs/__stats"); const c=o.sts.callers;
const a=c.filter(x=>x.role.endsWith('/a')).pop(), b=c.filter(x=>x.role.endsWith('/b')).pop();
if(!a||!b||a.callerKey!=='$USER_KEY'||!b.callerKey.startsWith('ASIA')){console.error(JSON.stringify(c));process.exit(1)}" ||
    fail "chain: roles not assumed in chain order"
describe from-env 0 "role $(role a) (profile 'from-env' of $home/.aws/config) with credentials from environment variables" \
    AWS_ACCESS_KEY_ID=$USER_KEY "AWS_SECRET_ACCESS_KEY=$USER_SECRET" -- --profile from-env
describe container 0 "container credentials endpoint $cs/v1/credentials" \
    AWS_CONTAINER_CREDENTIALS_FULL_URI="$cs/v1/credentials" AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="$tmp/container-token"
describe container-token-env 0 "container credentials endpoint" \
    AWS_CONTAINER_CREDENTIALS_FULL_URI="$cs/v1/credentials" AWS_CONTAINER_AUTHORIZATION_TOKEN=container-auth-token-1
describe container-bad-token 5 "answered HTTP 401: Unauthorized" \
    AWS_CONTAINER_CREDENTIALS_FULL_URI="$cs/v1/credentials" AWS_CONTAINER_AUTHORIZATION_TOKEN=wrong-token-0001
describe container-refused-host 2 "AWS_CONTAINER_CREDENTIALS_FULL_URI 'http://192.0.2.1/v1/credentials' is refused" \
    AWS_CONTAINER_CREDENTIALS_FULL_URI=http://192.0.2.1/v1/credentials
describe from-container 0 "role $(role b) (profile 'from-container' of $home/.aws/config) with credentials from container" \
    AWS_CONTAINER_CREDENTIALS_FULL_URI="$cs/v1/credentials" AWS_CONTAINER_AUTHORIZATION_TOKEN=container-auth-token-1 \
    -- --profile from-container
control '{"resetStats":true}'
describe imds 0 "EC2 instance metadata $cs, role 'ec2-instance-role'" \
    AWS_EC2_METADATA_DISABLED=false AWS_EC2_METADATA_SERVICE_ENDPOINT="$cs"
[ "$(cred_stat 'o.imds.tokenPuts>0 && o.imds.unauthorized===0 && o.imds.credentials>0')" = true ] ||
    fail "imds: not IMDSv2 (token PUT first, every GET with its token)"
describe from-imds 0 "role $(role a) (profile 'from-imds' of $home/.aws/config) with credentials from EC2 instance metadata $cs" \
    AWS_EC2_METADATA_DISABLED=false AWS_EC2_METADATA_SERVICE_ENDPOINT="$cs" -- --profile from-imds
# The region from instance metadata when nothing else gives one (dynalite takes any region).
run imds-region 0 env -u AWS_REGION AWS_EC2_METADATA_DISABLED=false AWS_EC2_METADATA_SERVICE_ENDPOINT="$cs" \
    "$bin" describe --table creds --endpoint-url "$endpoint" --verbose
grep -q "region us-west-2 (from EC2 instance metadata $cs)" "$tmp/imds-region.err" || fail "imds-region: not from IMDS"
describe sso 0 "SSO role ReadOnly in account 123456789012 (profile 'sso', sso-session 'corp')" AWS_PROFILE=sso
describe sso-legacy 0 "SSO role ReadOnly in account 123456789012 (profile 'sso-legacy', https://corp.awsapps.com/start)" \
    AWS_PROFILE=sso-legacy
describe sso-denied 5 "the SSO portal answered HTTP 403 ForbiddenException: No access" AWS_PROFILE=sso-denied
sso_cache corp sso-access-token-1 "$past"
describe sso-expired 2 "the SSO login expired at $past; run 'aws sso login --sso-session corp'" AWS_PROFILE=sso
sso_cache corp revoked-sso-token-01 "$future"
describe sso-refused 2 "the SSO portal refused the cached login (HTTP 401 UnauthorizedException: Session token not found or invalid); run 'aws sso login --sso-session corp'" \
    AWS_PROFILE=sso
rm -f "$home"/.aws/sso/cache/*
describe sso-missing 2 "no usable SSO login (cannot read the SSO token cache file" AWS_PROFILE=sso
describe mfa 2 "profile 'mfa' sets mfa_serial" AWS_PROFILE=mfa

# -- precedence -------------------------------------------------------------------------------
describe env-beats-profile 0 "environment variables" AWS_PROFILE=assume AWS_ACCESS_KEY_ID=$USER_KEY \
    "AWS_SECRET_ACCESS_KEY=$USER_SECRET"
describe explicit-profile 0 "role $(role ext)" AWS_ACCESS_KEY_ID=AKIAUNUSED0000000001 AWS_SECRET_ACCESS_KEY=x \
    -- --profile assume
describe role-beats-web-env 0 "role $(role ext)" AWS_PROFILE=assume AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token" \
    AWS_ROLE_ARN="$(role web)"
describe web-beats-container 0 "web identity role" AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token" \
    AWS_ROLE_ARN="$(role web)" AWS_CONTAINER_CREDENTIALS_FULL_URI="$cs/v1/credentials"
describe container-beats-imds 0 "container credentials endpoint" AWS_CONTAINER_CREDENTIALS_FULL_URI="$cs/v1/credentials" \
    AWS_CONTAINER_AUTHORIZATION_TOKEN=container-auth-token-1 AWS_EC2_METADATA_DISABLED=false AWS_EC2_METADATA_SERVICE_ENDPOINT="$cs"
describe nothing 2 "no AWS credentials for profile 'default'"

# -- STS errors and retries -------------------------------------------------------------------
describe wrong-external-id 5 "STS AssumeRole answered HTTP 403 AccessDenied: User: arn:aws:iam::$acct:user/ci is not authorized to perform: sts:AssumeRole on resource: $(role ext)" \
    AWS_PROFILE=wrong-external-id
echo jwt-expired >"$tmp/web-token-expired"
describe web-expired-token 5 "answered HTTP 400 ExpiredTokenException: Token expired" \
    AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token-expired" AWS_ROLE_ARN="$(role web)"
control '{"config":{"echoSecretsInErrors":true}}'
echo "jwt-not-accepted-secret-0001" >"$tmp/web-token-bad"
describe web-bad-token 5 "InvalidIdentityToken: Incorrect token audience (token \*\*\*\*)" \
    AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token-bad" AWS_ROLE_ARN="$(role web)"
grep -q jwt-not-accepted-secret-0001 "$tmp/web-bad-token.err" && fail "web-bad-token: the token STS echoed was printed"
control '{"config":{"echoSecretsInErrors":false}}'
control '{"resetStats":true,"inject":{"sts":[{"status":400,"code":"Throttling","message":"Rate exceeded"},{"status":503,"code":"ServiceUnavailable"},{"status":400,"code":"IDPCommunicationError"}]}}'
describe sts-retried 0 "web identity role" AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token" AWS_ROLE_ARN="$(role web)"
[ "$(cred_stat o.sts.requests)" = 4 ] || fail "sts-retried: 3 retryable failures then success: 4 requests expected, got $(cred_stat o.sts.requests)"
control '{"resetStats":true,"inject":{"sts":[{"status":500,"code":"InternalFailure"},{"status":500,"code":"InternalFailure"},{"status":500,"code":"InternalFailure"}]}}'
describe sts-exhausted 5 "STS AssumeRoleWithWebIdentity answered HTTP 500 InternalFailure: injected (3 attempts)" \
    AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token" AWS_ROLE_ARN="$(role web)" -- --max-attempts 3
control '{"inject":{"sts":[{"status":400,"code":"ValidationError","message":"bad"}]}}'
describe sts-not-retried 5 "ValidationError: bad (1 attempt)" AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token" AWS_ROLE_ARN="$(role web)"
# DynamoDB itself refuses keys it does not know, and a wrong secret.
describe unknown-key 5 "UnrecognizedClientException" AWS_ACCESS_KEY_ID=AKIANOBODY0000000001 AWS_SECRET_ACCESS_KEY=x
describe bad-secret 5 "InvalidSignatureException" AWS_ACCESS_KEY_ID=$USER_KEY AWS_SECRET_ACCESS_KEY=wrong-secret
[ "$(fault_stat 'o.auth.unknown>0 && o.auth.badSignature>0 && o.auth.verified>0')" = true ] ||
    fail "the fault server's signature check did not see the expected outcomes"

# -- a long import across many expiries: zero rejects, every item written ----------------------
# A role assumed with web identity credentials (two STS calls per refresh); the web identity
# token is rotated during the run, and the old one stops working: the file is re-read.
"$gen" export --mapping "$fav" --items 1650 --unmatched 0 --invalid 0 --files 2 --seed 5 \
    --out "$tmp/long" >/dev/null || fail "generator"
exp=$(ls -d "$tmp"/long/AWSDynamoDB/*)
run long-expected 0 "$bin" export "$exp" --format ddb-json --out "$tmp/long-expected"
n=$(wc -l <"$tmp/long-expected/items.json")
control '{"resetStats":true}'
curl -s -XPOST "$fs/__control" -d '{"resetStats":true}' >/dev/null
start=$(date +%s)
AWS_PROFILE=chained "$bin" import "$exp" --table creds --endpoint-url "$fs" --max-wcu 50 \
    --summary "$tmp/long.json" --verbose >"$tmp/long.out" 2>"$tmp/long.err" &
long_pid=$!
sleep 12
echo jwt-two >"$tmp/web-token.new" && mv "$tmp/web-token.new" "$tmp/web-token"
sleep 2
control '{"config":{"webTokens":["jwt-two"]}}'
wait $long_pid
rc=$?
secs=$(($(date +%s) - start))
[ "$rc" = 0 ] || { fail "long: exit $rc"; tail -20 "$tmp/long.err" >&2; }
[ "$secs" -ge 30 ] || fail "long: ran $secs s, at least 30 expected"
[ "$(summary_total "$tmp/long.json" written)" = "$n" ] || fail "long: $n written expected"
[ "$(summary_total "$tmp/long.json" rejected)" = 0 ] || fail "long: nothing rejected expected"
refreshed=$(grep -c "credentials refreshed" "$tmp/long.err")
[ "$refreshed" -ge 7 ] || fail "long: $refreshed refreshes in $secs s of 6 s credentials"
keys=$(fault_stat 'Object.keys(o.auth.keys).length')
[ "$keys" -ge 7 ] || fail "long: only $keys distinct keys signed the writes"
[ "$(fault_stat 'o.auth.expired+o.auth.unknown+o.auth.badSignature')" = 0 ] ||
    fail "long: a request went out with expired or unknown credentials: $(fault_stat 'JSON.stringify(o.auth)')"
[ "$(cred_stat 'o.sts.webTokens["jwt-two"]>0 && o.sts.webTokens["jwt-one"]>0')" = true ] ||
    fail "long: the rotated web identity token was not read"
[ "$(cred_stat 'o.sts.AssumeRole>=7 && o.sts.AssumeRoleWithWebIdentity>=7')" = true ] ||
    fail "long: the chain was not refreshed at each expiry: $(cred_stat 'JSON.stringify([o.sts.AssumeRole,o.sts.AssumeRoleWithWebIdentity])')"
echo "long import: $n items in $secs s, $refreshed refreshes, $keys keys" >&2
run long-dump 0 env AWS_PROFILE=ci "$bin" export --table creds --format ddb-json \
    --out "$tmp/long-dump" --endpoint-url "$endpoint"
same_items long "$tmp/long-expected/items.json" -- "$tmp/long-dump/items.json"

# -- keys refused as expired before their time (clock skew): sent again, never rejected ---------
head -450 "$tmp/long-expected/items.json" >"$tmp/skew-items.json"
run skewed 0 env AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/web-token" AWS_ROLE_ARN="$(role web)" \
    "$bin" import "$tmp/skew-items.json" --table creds --endpoint-url "$ss" --max-wcu 45 \
    --summary "$tmp/skewed.json" --verbose
[ "$(summary_total "$tmp/skewed.json" written)" = 450 ] || fail "skewed: 450 written expected"
[ "$(summary_total "$tmp/skewed.json" rejected)" = 0 ] || fail "skewed: nothing rejected expected"
[ "$(fault_stat o.auth.expired "$ss")" -gt 0 ] || fail "skewed: no request was refused as expired"
grep -q "ExpiredTokenException with credentials of generation" "$tmp/skewed.err" ||
    fail "skewed: no request was sent again with newer credentials"
grep -q "credentials refreshed after a request was refused" "$tmp/skewed.err" ||
    fail "skewed: no refresh was forced"

# -- no secret anywhere: not in any output, log or error of this test ---------------------------
curl -s "$cs/__issued" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{for(const x of JSON.parse(s).secrets)console.log(x)})" \
    >"$tmp/secrets.lst"
echo "$USER_SECRET" >>"$tmp/secrets.lst"
[ "$(wc -l <"$tmp/secrets.lst")" -gt 40 ] || fail "secrets: too few issued to be a real check"
if grep -rlF -f "$tmp/secrets.lst" "$tmp"/*.err "$tmp"/*.out "$tmp"/*.json 2>/dev/null | grep -v cred.json; then
    fail "secrets: a secret appears in the files above"
fi
finish
