#!/usr/bin/env bash
# Two accounts in one run. DynamoDB Local started without -sharedDb keeps one database per access
# key and region, so two profiles with different keys are two accounts: a migrate from account A
# to account B (--to-profile, --create-table, re-keyed through the mappings) leaves A untouched
# (diff against an export taken before, the item count unchanged) and B exact (diff through both
# mappings, each side with its own identity); migrate without mappings copies the items as they
# are; sync repairs B from A; each message about a side says which. Then a target reached as an
# IAM role (--to-role-arn, --to-external-id) through the scripted STS (tests/cred-server), behind
# the fault server in front of dynalite, whose signature check takes only the keys STS issued:
# every write to the target is signed with the role's keys, assumed again as they expire, while
# the source is read with account A's own. No secret is ever printed.
. "$(dirname "$0")/lib.bash"
fav="$root/formats/favorites.json"
fav2="$root/formats/favorites-v2.json"

command -v java >/dev/null 2>&1 || { echo "no Java runtime (default-jre-headless)" >&2; exit 1; }
ddbl=$(DDBLOCAL_OWNER_PID=$$ "$root/scripts/dynamodb-local.sh" start "$tmp/ddblocal" --per-account) || {
    echo "cannot start DynamoDB Local" >&2
    exit 1
}
trap '"$root/scripts/dynamodb-local.sh" stop "$tmp/ddblocal" >/dev/null 2>&1; [ -n "${cred_pid:-}" ] && kill $cred_pid 2>/dev/null; cleanup' EXIT

# Two accounts: their keys in a credentials file of the test's own, and no keys in the environment.
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
A_SECRET="accountA/secret+0000000000000000000000"
B_SECRET="accountB/secret+1111111111111111111111"
export AWS_CONFIG_FILE="$tmp/config" AWS_SHARED_CREDENTIALS_FILE="$tmp/credentials"
cat >"$AWS_SHARED_CREDENTIALS_FILE" <<EOF
[a]
aws_access_key_id = AKIAACCOUNTA00000001
aws_secret_access_key = $A_SECRET
[b]
aws_access_key_id = AKIAACCOUNTB00000002
aws_secret_access_key = $B_SECRET
[app]
aws_access_key_id = AKIDEXAMPLETESTONLY
aws_secret_access_key = test-secret-not-real
EOF
cat >"$AWS_CONFIG_FILE" <<EOF
[profile a]
region = us-east-1
[profile b]
region = us-east-1
[profile app]
region = us-east-1
EOF
E=(--endpoint-url "$ddbl")
# diff and migrate keep their side files in ./ddbpipe-runs/: in the test's folder, not the caller's
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
cd "$tmp" || exit 1
# count PROFILE TABLE: the items a Scan counts, as the AWS CLI sees them in that account
count() {
    aws dynamodb scan --table-name "$2" --select COUNT --profile "$1" "${E[@]}" --output text \
        --query Count 2>/dev/null
}
tables() { aws dynamodb list-tables --profile "$1" "${E[@]}" --output text --query 'TableNames[]'; }

# -- account A: a table of 120 records, and an export of it as it was ---------------------------
run create-a 0 "$bin" create-table --mapping "$fav" --table Source --profile a "${E[@]}"
run fill-a 0 "$bin" generate --mapping "$fav" --count 40 --seed 7 --table Source --profile a "${E[@]}"
run export-a 0 "$bin" export --table Source --format ddb-json --mapping "$fav" --out "$tmp/before" \
    --profile a "${E[@]}"
[ "$(count a Source)" = 120 ] || fail "account A: $(count a Source) items, not 120"
[ -z "$(tables b)" ] || fail "account B is not empty before the run: $(tables b)"

# -- A to B, re-keyed, the table created in B -------------------------------------------------------
run migrate 0 "$bin" migrate --table Source --mapping "$fav" --to-table Target --to-mapping "$fav2" \
    --create-table --profile a --to-profile b "${E[@]}" --verbose
expect_in "$tmp/migrate.err" "ddbpipe: source (profile a, region us-east-1): credentials: access key AKIA****0001"
expect_in "$tmp/migrate.err" "ddbpipe: target (profile b, region us-east-1): credentials: access key AKIA****0002"
[ "$(tables a)" = Source ] || fail "account A holds: $(tables a) (the target went to the source's account)"
[ "$(tables b)" = Target ] || fail "account B holds: $(tables b)"
[ "$(count a Source)" = 120 ] || fail "account A: $(count a Source) items after the run, not 120"
run a-untouched 0 "$bin" diff "$tmp/before" --table Source --mapping "$fav" --profile a "${E[@]}"
run b-exact 0 "$bin" diff --table Source --mapping "$fav" --to-table Target --to-mapping "$fav2" \
    --profile a --to-profile b "${E[@]}"
expect_in "$tmp/b-exact.err" "A: table Source on the source (profile a, region us-east-1): 120 read"
expect_in "$tmp/b-exact.err" "B: table Target on the target (profile b, region us-east-1): 120 read"

# -- the same run with one identity finds no Target in account A: the sides really differ ----------
run one-identity 2 "$bin" diff --table Source --mapping "$fav" --to-table Target --to-mapping "$fav2" \
    --profile a "${E[@]}"
expect_in "$tmp/one-identity.err" "table Target does not exist"

# -- migrate without mappings: the items as they are ------------------------------------------------
run create-copy 0 "$bin" create-table --mapping "$fav" --table Copy --profile b "${E[@]}"
run plain 0 "$bin" migrate --table Source --to-table Copy --profile a --to-profile b "${E[@]}" \
    --state "$tmp/plain.state"
# a resumed run writes where the interrupted one did, or not at all
run plain-resume-other 2 "$bin" migrate --table Source --to-table Copy --profile a --to-profile a \
    "${E[@]}" --state "$tmp/plain.state" --resume
expect_in "$tmp/plain-resume-other.err" \
    'cannot resume: identity differs from the checkpointed run (was "profile=a endpoint-url='
run plain-resume-one 2 "$bin" migrate --table Source --to-table Copy --profile a "${E[@]}" \
    --state "$tmp/plain.state" --resume
expect_in "$tmp/plain-resume-one.err" 'cannot resume: the checkpointed run had identity "profile=a'
run plain-resume-same 0 "$bin" migrate --table Source --to-table Copy --profile a --to-profile b \
    "${E[@]}" --state "$tmp/plain.state" --resume
run plain-diff 0 "$bin" diff --table Source --to-table Copy --profile a --to-profile b "${E[@]}"
run plain-files 0 "$bin" export --table Copy --format ddb-json --mapping "$fav" --out "$tmp/copy" \
    --profile b "${E[@]}"
same_items plain "$tmp/before"/*.json -- "$tmp/copy"/*.json

# -- files into account B: only the target's identity is needed (no default credentials here) --
run items-a 0 "$bin" export --table Source --format ddb-json --out "$tmp/items" --profile a "${E[@]}"
run files-to-b 0 "$bin" migrate "$tmp/items" --mapping "$fav" --to-mapping "$fav2" --to-table FromFiles \
    --create-table --to-profile b "${E[@]}"
run files-diff 0 "$bin" diff --table Source --mapping "$fav" --to-table FromFiles --to-mapping "$fav2" \
    --profile a --to-profile b "${E[@]}"

# -- sync repairs B from A: one item gone, one added --------------------------------------------------
key=$(aws dynamodb scan --table-name Target --limit 1 --profile b "${E[@]}" --output json \
    --query 'Items[0].{PK:PK,SK:SK}')
aws dynamodb delete-item --table-name Target --key "$key" --profile b "${E[@]}" ||
    fail "cannot delete $key from Target"
aws dynamodb put-item --table-name Target --profile b "${E[@]}" \
    --item '{"PK":{"S":"stray"},"SK":{"S":"stray"}}' || fail "cannot put the stray item"
run sync 0 "$bin" sync --table Source --mapping "$fav" --to-table Target --to-mapping "$fav2" \
    --profile a --to-profile b "${E[@]}"
expect_in "$tmp/sync.err" "1 put, 1 deleted"
run after-sync 0 "$bin" diff --table Source --mapping "$fav" --to-table Target --to-mapping "$fav2" \
    --profile a --to-profile b "${E[@]}"

# -- migrate --live into account B while the application writes to A (tests/integration/live's
#    app, whose keys are profile app's): the copy and the replay write with B's identity --------
here="$root/tests/integration/live"
app() { NODE_NO_WARNINGS=1 node "$here/app.js" "$1" --endpoint "$ddbl" "${@:2}"; }
app create --table LiveSource && app seed --table LiveSource --users 10 || fail "live: no source"
app churn --table LiveSource --users 10 --seconds 6 --rate 30 >"$tmp/app.out" 2>"$tmp/app.err" &
app_pid=$!
run live 0 "$bin" migrate --live --table LiveSource --mapping "$here/source.json" --to-table LiveTarget \
    --to-mapping "$here/target.json" --create-table --profile app --to-profile b "${E[@]}" \
    --stop-when-idle 3 --max-wcu 100
wait "$app_pid" || fail "live: the application failed: $(tail -3 "$tmp/app.err")"
run live-diff 0 "$bin" diff --table LiveSource --mapping "$here/source.json" --to-table LiveTarget \
    --to-mapping "$here/target.json" --profile app --to-profile b "${E[@]}"
aws dynamodb describe-table --table-name LiveTarget --profile app "${E[@]}" >/dev/null 2>&1 &&
    fail "live: the target was made in the source's account"

# -- each message says its side ----------------------------------------------------------------------
run no-target 2 "$bin" migrate --table Source --to-table Missing --profile a --to-profile b "${E[@]}"
expect_in "$tmp/no-target.err" "error: target (profile b, region us-east-1): table Missing does not exist"
run no-source 2 "$bin" migrate --table Missing --to-table Copy --profile a --to-profile b "${E[@]}"
expect_in "$tmp/no-source.err" "error: source (profile a, region us-east-1): table Missing does not exist"
run no-profile 2 "$bin" migrate --table Source --to-table Copy --profile a --to-profile nobody "${E[@]}"
expect_in "$tmp/no-profile.err" "error: target: AWS profile 'nobody' (from --to-profile) not found"
run region-b 2 "$bin" migrate --table Source --to-table Copy --profile a --to-profile b \
    --to-region eu-west-1 "${E[@]}"
expect_in "$tmp/region-b.err" "target (profile b, region eu-west-1): table Copy does not exist"
run external-id-alone 2 "$bin" migrate --table Source --to-table Copy --profile a \
    --to-external-id x "${E[@]}"
expect_in "$tmp/external-id-alone.err" "--to-external-id is the role's: it needs --to-role-arn"
run to-files 2 "$bin" diff --table Source "$tmp/before" --profile a --to-profile b "${E[@]}"
expect_in "$tmp/to-files.err" "are the identity of the target table, and there is none"

# -- the target as a role: STS AssumeRole with account B's keys, refreshed as they expire ----------
acct=222233334444
ROLE="arn:aws:iam::$acct:role/migration-writer"
cat >"$tmp/cred.json" <<EOF
{ "lifetimeS": 3, "region": "us-east-1", "account": "$acct",
  "users": { "AKIAACCOUNTB00000002": { "secret": "$B_SECRET", "arn": "arn:aws:iam::$acct:user/ci" } },
  "roles": { "$ROLE": { "externalId": "the-external-id" } } }
EOF
node "$root/tests/cred-server/cred-server.js" --script "$tmp/cred.json" --port-file "$tmp/cred.port" \
    --owner-pid $$ --quiet >"$tmp/cred.log" 2>&1 &
cred_pid=$!
node "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --port-file "$tmp/fault.port" \
    --owner-pid $$ --quiet --auth "http://127.0.0.1:$(for _ in $(seq 1 100); do
        [ -s "$tmp/cred.port" ] && break; sleep 0.1; done; cat "$tmp/cred.port")" >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fault.port" ] && break; sleep 0.1; done
cs="http://127.0.0.1:$(cat "$tmp/cred.port")"
fs="http://127.0.0.1:$(cat "$tmp/fault.port")"
export AWS_ENDPOINT_URL_STS="$cs"
stat() { curl -s "$1/${3:-__stats}" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const o=JSON.parse(s);console.log(($2))})"; }
R=(--to-profile b --to-role-arn "$ROLE" --to-endpoint-url "$fs")
# the target table, made in dynalite with the test's plain keys
AWS_ACCESS_KEY_ID=AKIDEXAMPLETESTONLY AWS_SECRET_ACCESS_KEY=test-secret-not-real \
    run role-create 0 "$bin" create-table --mapping "$fav2" --table Roled --endpoint-url "$endpoint" \
    --region us-east-1
run role-wrong-id 5 "$bin" migrate --table Source --mapping "$fav" --to-table Roled --to-mapping "$fav2" \
    --profile a "${E[@]}" --to-profile b --to-role-arn "$ROLE" --to-external-id wrong --to-endpoint-url "$fs"
expect_in "$tmp/role-wrong-id.err" "target: "
expect_in "$tmp/role-wrong-id.err" "AccessDenied"
# --max-wcu stretches the run over several of the role's 3 s lifetimes
run role 0 "$bin" migrate --table Source --mapping "$fav" --to-table Roled --to-mapping "$fav2" \
    --profile a "${E[@]}" "${R[@]}" --to-external-id the-external-id --max-wcu 20 --verbose
expect_in "$tmp/role.err" "ddbpipe: target (role $ROLE, profile b, region us-east-1): credentials: access key ASIA"
expect_in "$tmp/role.err" "role $ROLE (--to-role-arn) with credentials from credentials file"
[ "$(stat "$cs" 'o.sts.callers.filter(c=>c.role==="'"$ROLE"'").every(c=>c.callerKey==="AKIAACCOUNTB00000002"||c.callerKey.startsWith("ASIA"))')" = true ] ||
    fail "role: AssumeRole not signed with account B's key"
[ "$(stat "$cs" 'o.sts.externalIds.includes("the-external-id")')" = true ] ||
    fail "role: the external ID was not sent"
assumed=$(stat "$cs" 'o.sts.callers.filter(c=>c.role==="'"$ROLE"'").length')
[ "${assumed:-0}" -ge 3 ] || fail "role: assumed $assumed times over a run of several lifetimes"
# every write the target got was signed with an issued key (an unknown one, account A's say,
# is refused before it reaches dynalite)
[ "$(stat "$fs" 'o.auth.unknown + o.auth.expired + o.auth.badSignature')" = 0 ] ||
    fail "role: the target got requests not signed with the role's keys: $(curl -s "$fs/__stats")"
[ "$(stat "$fs" 'Object.keys(o.auth.keys).every(k=>k.startsWith("ASIA"))')" = true ] ||
    fail "role: the target saw keys that are not the role's"
run role-diff 0 "$bin" diff --table Source --mapping "$fav" --to-table Roled --to-mapping "$fav2" \
    --profile a "${E[@]}" "${R[@]}" --to-external-id the-external-id

# -- no secret in any output ---------------------------------------------------------------------
for secret in "$A_SECRET" "$B_SECRET" $(stat "$cs" 'o.secrets.join("\n")' __issued | grep -v '^$'); do
    if grep -rqF -- "$secret" "$tmp"/*.err "$tmp"/*.out; then fail "a secret was printed"; fi
done
finish
