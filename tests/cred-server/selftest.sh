#!/usr/bin/env bash
# Checks the test credential services themselves before anything relies on them: the SigV4
# verifier against all 38 shared aws-c-auth vectors (canonical request byte for byte, and a
# tampered request or a wrong secret refused), then the scripted server's answers as AWS gives
# them: IMDSv2's token rules, STS's XML and error documents, the SSO portal's and the container
# endpoint's refusals, and the key registry the fault server consults.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vectors="$root/../shared/testdata/sigv4/v4"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cred-selftest.XXXXXX")
pass=0
failed=0
cleanup() {
    [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

out=$(node "$here/sigv4.js" --vectors "$vectors")
check "sigv4 vectors ($out)" '[ "$out" = "38 vectors verified, 0 failed" ]'

cat >"$tmp/cfg.json" <<'EOF'
{ "lifetimeS": 5, "roles": { "arn:aws:iam::111122223333:role/web": { "webIdentity": true } },
  "webTokens": ["good-jwt"], "container": { "path": "/creds", "token": "tok", "roleArn": "arn:aws:iam::111122223333:role/t" } }
EOF
node "$here/cred-server.js" --script "$tmp/cfg.json" --port-file "$tmp/port" --owner-pid $$ --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
u="http://127.0.0.1:$(cat "$tmp/port")"
code() { curl -s -o "$tmp/body" -D "$tmp/head" -w '%{http_code}' "$@"; }

# IMDSv2: a GET needs a token; a PUT needs a TTL header in 1..21600.
check "imds: GET without a token is 401" '[ "$(code "$u/latest/meta-data/iam/security-credentials/")" = 401 ]'
check "imds: PUT without a TTL is 400" '[ "$(code -X PUT "$u/latest/api/token")" = 400 ]'
check "imds: TTL 0 is 400" '[ "$(code -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 0" "$u/latest/api/token")" = 400 ]'
check "imds: TTL 21601 is 400" '[ "$(code -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 21601" "$u/latest/api/token")" = 400 ]'
check "imds: a proxied PUT is 403" '[ "$(code -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 60" -H "X-Forwarded-For: 1.2.3.4" "$u/latest/api/token")" = 403 ]'
check "imds: PUT gives a token" '[ "$(code -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 2" "$u/latest/api/token")" = 200 ]'
tok=$(cat "$tmp/body")
check "imds: the TTL is echoed" 'grep -qi "^x-aws-ec2-metadata-token-ttl-seconds: 2" "$tmp/head"'
check "imds: role name with the token" '[ "$(code -H "X-aws-ec2-metadata-token: $tok" "$u/latest/meta-data/iam/security-credentials/")" = 200 ] && [ "$(cat "$tmp/body")" = ec2-instance-role ]'
check "imds: credentials" '[ "$(code -H "X-aws-ec2-metadata-token: $tok" "$u/latest/meta-data/iam/security-credentials/ec2-instance-role")" = 200 ] && grep -q "\"Code\": \"Success\"" "$tmp/body" && grep -q "\"Token\": \"IQoJ" "$tmp/body"'
check "imds: a wrong token is 401" '[ "$(code -H "X-aws-ec2-metadata-token: nope" "$u/latest/meta-data/placement/region")" = 401 ]'
sleep 2.1
check "imds: an expired token is 401" '[ "$(code -H "X-aws-ec2-metadata-token: $tok" "$u/latest/meta-data/placement/region")" = 401 ]'

# STS: XML answers and error documents.
form='Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A111122223333%3Arole%2Fweb&RoleSessionName=s1'
check "sts: web identity" '[ "$(code -d "$form&WebIdentityToken=good-jwt" "$u/")" = 200 ] && grep -q "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">" "$tmp/body" && grep -q "<SessionToken>IQoJ" "$tmp/body" && grep -q "<Expiration>20[0-9-]*T[0-9:]*Z</Expiration>" "$tmp/body"'
akid=$(sed -n 's/.*<AccessKeyId>\(.*\)<\/AccessKeyId>.*/\1/p' "$tmp/body")
check "sts: a bad token" '[ "$(code -d "$form&WebIdentityToken=bad" "$u/")" = 400 ] && grep -q "<Code>InvalidIdentityToken</Code>" "$tmp/body" && grep -q "<ErrorResponse xmlns=" "$tmp/body" && grep -q "<Type>Sender</Type>" "$tmp/body"'
check "sts: a session name off the pattern" '[ "$(code -d "${form/s1/a b}&WebIdentityToken=good-jwt" "$u/")" = 400 ] && grep -q "<Code>ValidationError</Code>" "$tmp/body"'
check "sts: AssumeRole unsigned" '[ "$(code -d "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A111122223333%3Arole%2Fweb&RoleSessionName=s1" "$u/")" = 403 ] && grep -q "<Code>MissingAuthenticationToken</Code>" "$tmp/body"'
check "sts: AssumeRole with a bad signature" '[ "$(code -H "X-Amz-Date: $(date -u +%Y%m%dT%H%M%SZ)" -H "Authorization: AWS4-HMAC-SHA256 Credential=$akid/$(date -u +%Y%m%d)/us-east-1/sts/aws4_request, SignedHeaders=host;x-amz-date, Signature=00" -d "Action=AssumeRole&Version=2011-06-15" "$u/")" = 403 ] && grep -q "<Code>SignatureDoesNotMatch</Code>" "$tmp/body"'
check "sts: unknown action" '[ "$(code -d "Action=GetSessionToken&Version=2011-06-15" "$u/")" = 400 ] && grep -q "<Code>InvalidAction</Code>" "$tmp/body"'

# The key registry the fault server reads, with the key's validity.
check "keys: an issued key" '[ "$(code "$u/__keys/$akid")" = 200 ] && grep -q "\"validUntil\":[0-9]" "$tmp/body" && grep -q "\"source\":\"sts\"" "$tmp/body"'
check "keys: an unknown key is 404" '[ "$(code "$u/__keys/ASIANOBODY")" = 404 ]'

# SSO portal and container endpoint refusals.
check "sso: no token is 401 UnauthorizedException" '[ "$(code "$u/federation/credentials?account_id=1&role_name=r")" = 401 ] && grep -qi "^x-amzn-errortype: UnauthorizedException" "$tmp/head"'
check "container: no token is 401" '[ "$(code "$u/creds")" = 401 ]'
check "container: the token gives credentials" '[ "$(code -H "Authorization: tok" "$u/creds")" = 200 ] && grep -q "\"Token\":\"IQoJ" "$tmp/body"'

echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
