#!/usr/bin/env bash
# DynamoDB over HTTPS: the fault server in front of dynalite serves TLS with the test certificate
# of tests/client/tls/ (for 127.0.0.1 and localhost). With AWS_CA_BUNDLE naming it, an import and
# a Scan go through, to the server by address and by name; without it the server is not trusted
# and no request reaches it.
. "$(dirname "$0")/lib.bash"
fav="$root/formats/favorites.json"
cert="$root/tests/client/tls/cert.pem"

node "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --port-file "$tmp/fport" \
    --tls-cert "$cert" --tls-key "$root/tests/client/tls/key.pem" --owner-pid $$ --quiet \
    >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
port=$(cat "$tmp/fport")
https="https://127.0.0.1:$port"
requests() {
    curl -s --cacert "$cert" "$https/__stats" |
        node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).requests))"
}
D=(--endpoint-url "$endpoint")
trusted=(env AWS_CA_BUNDLE="$cert")

for k in $(seq 1 300); do
    printf '{"Item":{"pk":{"S":"Tag#u%d"},"sk":{"S":"t%d"},"tagName":{"S":"v"}}}\n' "$k" "$k"
done >"$tmp/items.json"
run create 0 "$bin" create-table --mapping "$fav" --table tls "${D[@]}"

# -- not trusted: the system's CAs do not know the test certificate --------------------------
run untrusted 5 "$bin" import "$tmp/items.json" --table tls --endpoint-url "$https" \
    --max-attempts 2
expect_in "$tmp/untrusted.err" "SSL certificate problem: self-signed certificate"
expect_in "$tmp/untrusted.err" "AWS_CA_BUNDLE=FILE (or the profile's ca_bundle)"
[ "$(requests)" = 0 ] || fail "untrusted: a request reached the server ($(requests))"

# A table that is not there, named so: its name is no reason to hint at certificates.
run no-table 2 "$bin" import "$tmp/items.json" --table certificates "${D[@]}"
expect_in "$tmp/no-table.err" "create it first"

# -- trusted through AWS_CA_BUNDLE: by address and by name ------------------------------------
run by-address 0 "${trusted[@]}" "$bin" import "$tmp/items.json" --table tls \
    --endpoint-url "$https" --summary "$tmp/by-address.json"
[ "$(summary_total "$tmp/by-address.json" written)" = 300 ] || fail "by-address: 300 written expected"
run by-name 0 "${trusted[@]}" "$bin" import "$tmp/items.json" --table tls \
    --endpoint-url "https://localhost:$port" --summary "$tmp/by-name.json"
[ "$(summary_total "$tmp/by-name.json" written)" = 300 ] || fail "by-name: 300 written expected"
run scan 0 "${trusted[@]}" "$bin" export --table tls --segments 2 --format ddb-json \
    --out "$tmp/scan" --endpoint-url "https://localhost:$port"
same_items scan "$tmp/items.json" -- "$tmp/scan/items.json"
[ "$(requests)" -gt 0 ] || fail "the server counted no request"

# -- the profile's ca_bundle: STS over HTTPS (an assumed role) and DynamoDB both trust it ----
acct=111122223333
secret=userSecret0000000000000000000000000000000
printf '{"lifetimeS": 900, "region": "us-east-1", "account": "%s", "users": {"AKIAUSERKEY000000001": {"secret": "%s", "arn": "arn:aws:iam::%s:user/ci"}}, "roles": {"arn:aws:iam::%s:role/a": {}}}\n' \
    "$acct" "$secret" "$acct" "$acct" >"$tmp/cred.json"
node "$root/tests/cred-server/cred-server.js" --script "$tmp/cred.json" --tls-cert "$cert" \
    --tls-key "$root/tests/client/tls/key.pem" --port-file "$tmp/cport" --owner-pid $$ --quiet \
    >"$tmp/cred.log" 2>&1 &
cred_pid=$!
trap 'kill $cred_pid 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 100); do [ -s "$tmp/cport" ] && break; sleep 0.1; done
mkdir -p "$tmp/home/.aws"
printf '[ci]\naws_access_key_id = AKIAUSERKEY000000001\naws_secret_access_key = %s\n' "$secret" \
    >"$tmp/home/.aws/credentials"
printf '[profile corp]\nrole_arn = arn:aws:iam::%s:role/a\nsource_profile = ci\nca_bundle = %s\n[profile corp-untrusted]\nrole_arn = arn:aws:iam::%s:role/a\nsource_profile = ci\n' \
    "$acct" "$cert" "$acct" >"$tmp/home/.aws/config"
as_corp=(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$tmp/home"
    AWS_CONFIG_FILE="$tmp/home/.aws/config" AWS_SHARED_CREDENTIALS_FILE="$tmp/home/.aws/credentials"
    AWS_ENDPOINT_URL_STS="https://127.0.0.1:$(cat "$tmp/cport")")
run sts 0 "${as_corp[@]}" AWS_PROFILE=corp "$bin" import "$tmp/items.json" --table tls \
    --endpoint-url "$https" --summary "$tmp/sts.json" --verbose
[ "$(summary_total "$tmp/sts.json" written)" = 300 ] || fail "sts: 300 written expected"
expect_in "$tmp/sts.err" "CAs trusted for https: $cert (from 'ca_bundle' in profile 'corp'"
expect_in "$tmp/sts.err" "arn:aws:iam::$acct:role/a"
run sts-untrusted 5 "${as_corp[@]}" AWS_PROFILE=corp-untrusted "$bin" import "$tmp/items.json" \
    --table tls --endpoint-url "$https" --max-attempts 2
expect_in "$tmp/sts-untrusted.err" "certificate"

finish
