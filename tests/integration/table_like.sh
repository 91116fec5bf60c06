#!/usr/bin/env bash
# create-table --like and --create-table from a table: the whole definition, from one account to
# another. DynamoDB Local (without -sharedDb: one database per access key, so profiles a and b are
# two accounts) behind tests/definition-server, which answers what DynamoDB Local lacks (tags,
# point-in-time recovery, resource policies) as the API reference documents them. A provisioned
# model table with a GSI (INCLUDE projection), Streams, a KMS key, the infrequent-access class,
# deletion protection, tags, TTL, recovery over 14 days and a resource policy; an on-demand one
# with an LSI. The copy's describe-table, describe-time-to-live, describe-continuous-backups,
# tags and policy, read with the AWS CLI, are the model's but for names, ARNs, times and sizes.
# Then migrate --create-table makes its target like the source (keys and indexes from
# --to-mapping), and what cannot be copied is named.
. "$(dirname "$0")/lib.bash"
fav="$root/formats/favorites.json"
fav2="$root/formats/favorites-v2.json"

command -v java >/dev/null 2>&1 || { echo "no Java runtime (default-jre-headless)" >&2; exit 1; }
command -v aws >/dev/null 2>&1 || { echo "no AWS CLI" >&2; exit 1; }
ddbl=$(DDBLOCAL_OWNER_PID=$$ "$root/scripts/dynamodb-local.sh" start "$tmp/ddblocal" --per-account) || {
    echo "cannot start DynamoDB Local" >&2
    exit 1
}
trap '"$root/scripts/dynamodb-local.sh" stop "$tmp/ddblocal" >/dev/null 2>&1; cleanup' EXIT
node "$root/tests/definition-server/definition-server.js" --dynamodb "$ddbl" \
    --account AKIAACCOUNTA00000001=111111111111 --account AKIAACCOUNTB00000002=222222222222 \
    --port-file "$tmp/def.port" --owner-pid $$ --quiet >"$tmp/def.log" 2>&1 &
fault_pid=$! # stopped by cleanup
for _ in $(seq 1 100); do [ -s "$tmp/def.port" ] && break; sleep 0.1; done
D="http://127.0.0.1:$(cat "$tmp/def.port")"

unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
export AWS_CONFIG_FILE="$tmp/config" AWS_SHARED_CREDENTIALS_FILE="$tmp/credentials"
cat >"$AWS_SHARED_CREDENTIALS_FILE" <<EOF
[a]
aws_access_key_id = AKIAACCOUNTA00000001
aws_secret_access_key = accountA-secret-0000000000000000000000
[b]
aws_access_key_id = AKIAACCOUNTB00000002
aws_secret_access_key = accountB-secret-1111111111111111111111
EOF
printf '[profile a]\nregion = us-east-1\n[profile b]\nregion = us-west-2\n' >"$AWS_CONFIG_FILE"
A=(--profile a --endpoint-url "$D")
B=(--profile b --endpoint-url "$D")
arn_a() { echo "arn:aws:dynamodb:us-east-1:111111111111:table/$1"; }
arn_b() { echo "arn:aws:dynamodb:us-west-2:222222222222:table/$1"; }

# definition PROFILE TABLE ARN: what the AWS CLI describes of the table, its identity, times,
# sizes and counts left out, its ARN in the policy written TABLE_ARN
definition() {
    local p=$1 t=$2 arn=$3
    {
        aws dynamodb describe-table --table-name "$t" --profile "$p" --endpoint-url "$D" --output json
        aws dynamodb describe-time-to-live --table-name "$t" --profile "$p" --endpoint-url "$D" --output json
        aws dynamodb describe-continuous-backups --table-name "$t" --profile "$p" --endpoint-url "$D" --output json
        aws dynamodb list-tags-of-resource --resource-arn "$arn" --profile "$p" --endpoint-url "$D" --output json
        aws dynamodb get-resource-policy --resource-arn "$arn" --profile "$p" --endpoint-url "$D" \
            --output json --query '{Policy: Policy}' 2>/dev/null || echo '{"Policy":null}'
    } | ARN="$arn" node -e '
const drop = new Set(["TableName","TableArn","IndexArn","LatestStreamArn","LatestStreamLabel","CreationDateTime",
  "TableId","ItemCount","TableSizeBytes","IndexSizeBytes","LastIncreaseDateTime","LastDecreaseDateTime",
  "NumberOfDecreasesToday","EarliestRestorableDateTime","LatestRestorableDateTime",
  "LastUpdateToPayPerRequestDateTime","RevisionId"]);
const clean = (v) => Array.isArray(v) ? v.map(clean) : v && typeof v === "object"
  ? Object.fromEntries(Object.keys(v).filter((k) => !drop.has(k)).sort().map((k) => [k, clean(v[k])])) : v;
let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => {
  // the answers one after another: split where one JSON document ends
  let depth = 0, start = 0, str = false, esc = false; const docs = [];
  for (let i = 0; i < s.length; i++) { const c = s[i];
    if (str) { if (esc) esc = false; else if (c === "\\") esc = true; else if (c === "\"") str = false; continue; }
    if (c === "\"") str = true; else if (c === "{") depth++; else if (c === "}" && --depth === 0) { docs.push(s.slice(start, i + 1)); start = i + 1; } }
  for (const d of docs) console.log(JSON.stringify(clean(JSON.parse(d.trim().split(process.env.ARN).join("TABLE_ARN")))));
});'
}
# same_definition NAME PROFILE TABLE ARN PROFILE2 TABLE2 ARN2
same_definition() {
    definition "$2" "$3" "$4" >"$tmp/$1.model"
    definition "$5" "$6" "$7" >"$tmp/$1.copy"
    [ "$(wc -l <"$tmp/$1.model")" = 5 ] || fail "$1: the model's definition was not read whole: $(cat "$tmp/$1.model")"
    cmp -s "$tmp/$1.model" "$tmp/$1.copy" || {
        fail "$1: the copy's definition differs"
        diff "$tmp/$1.model" "$tmp/$1.copy" | cut -c1-400 >&2
    }
}

# -- a provisioned table with everything ----------------------------------------------------------
aws dynamodb create-table --table-name Model "${A[@]}" \
    --attribute-definitions AttributeName=pk,AttributeType=S AttributeName=g,AttributeType=N \
    --key-schema AttributeName=pk,KeyType=HASH --billing-mode PROVISIONED \
    --provisioned-throughput ReadCapacityUnits=5,WriteCapacityUnits=7 \
    --global-secondary-indexes 'IndexName=byG,KeySchema=[{AttributeName=g,KeyType=HASH}],Projection={ProjectionType=INCLUDE,NonKeyAttributes=[x,y]},ProvisionedThroughput={ReadCapacityUnits=3,WriteCapacityUnits=4}' \
    --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES \
    --sse-specification Enabled=true,SSEType=KMS,KMSMasterKeyId=arn:aws:kms:us-east-1:111111111111:key/model-key \
    --table-class STANDARD_INFREQUENT_ACCESS --deletion-protection-enabled \
    --tags Key=team,Value=data Key=cost-center,Value=42 >/dev/null || fail "cannot create Model"
aws dynamodb update-time-to-live --table-name Model "${A[@]}" \
    --time-to-live-specification Enabled=true,AttributeName=expires >/dev/null || fail "ttl"
aws dynamodb update-continuous-backups --table-name Model "${A[@]}" \
    --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true,RecoveryPeriodInDays=14 >/dev/null ||
    fail "pitr"
aws dynamodb put-resource-policy --resource-arn "$(arn_a Model)" "${A[@]}" --policy \
    '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111111111111:role/reader"},"Action":"dynamodb:GetItem","Resource":"'"$(arn_a Model)"'"}]}' \
    >/dev/null || fail "policy"

run like 0 "$bin" create-table --like Model --table Copy --profile a --to-profile b --endpoint-url "$D"
expect_in "$tmp/like.err" "encryption: KMS key arn:aws:kms:us-east-1:111111111111:key/model-key"
expect_in "$tmp/like.err" "autoscaling: the provisioned capacity is copied; Application Auto Scaling's targets and policies only when asked"
expect_in "$tmp/like.err" "table Copy is ACTIVE, made like Model"
same_definition like a Model "$(arn_a Model)" b Copy "$(arn_b Copy)"
# account A has no Copy, account B no Model
aws dynamodb describe-table --table-name Copy "${A[@]}" >/dev/null 2>&1 && fail "Copy was made in account A"
run like-again 2 "$bin" create-table --like Model --table Copy --profile a --to-profile b --endpoint-url "$D"
expect_in "$tmp/like-again.err" "add --if-not-exists"
run like-exists 0 "$bin" create-table --like Model --table Copy --profile a --to-profile b \
    --endpoint-url "$D" --if-not-exists
expect_in "$tmp/like-exists.err" "table Copy exists already; left as it is"
run like-missing 2 "$bin" create-table --like Nowhere --table X --profile a --to-profile b --endpoint-url "$D"
expect_in "$tmp/like-missing.err" "source (profile a, region us-east-1): table Nowhere does not exist"

# -- --copy-autoscaling: the table's and its GSI's scalable targets and target tracking policies,
#    through Application Auto Scaling (the definition server plays it too) -----------------------
export AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING="$D"
AS=(application-autoscaling --endpoint-url "$D" --output json)
for dim in table:ReadCapacityUnits table:WriteCapacityUnits index:ReadCapacityUnits; do
    id=table/Model
    [ "${dim%%:*}" = index ] && id=table/Model/index/byG
    aws "${AS[@]}" register-scalable-target --profile a --service-namespace dynamodb \
        --resource-id "$id" --scalable-dimension "dynamodb:$dim" --min-capacity 5 --max-capacity 50 >/dev/null ||
        fail "cannot register $dim"
    aws "${AS[@]}" put-scaling-policy --profile a --service-namespace dynamodb --resource-id "$id" \
        --scalable-dimension "dynamodb:$dim" --policy-name "keep-70-$dim" --policy-type TargetTrackingScaling \
        --target-tracking-scaling-policy-configuration '{"TargetValue":70.0,"PredefinedMetricSpecification":{"PredefinedMetricType":"DynamoDB'"$([ "${dim#*:}" = ReadCapacityUnits ] && echo Read || echo Write)"'CapacityUtilization"},"ScaleInCooldown":60,"ScaleOutCooldown":60}' \
        >/dev/null || fail "cannot put the policy of $dim"
done
run scaled 0 "$bin" create-table --like Model --table Scaled --copy-autoscaling --profile a \
    --to-profile b --endpoint-url "$D"
expect_in "$tmp/scaled.err" "autoscaling: 3 scalable targets and 3 target tracking policies copied"
# scaling PROFILE TABLE: its targets and policies, identities and times aside
scaling() {
    { aws "${AS[@]}" describe-scalable-targets --profile "$1" --service-namespace dynamodb
      aws "${AS[@]}" describe-scaling-policies --profile "$1" --service-namespace dynamodb; } |
        T="$2" node -e '
let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => {
  const docs = s.replace(/}\s*{/, "}\u0000{").split("\u0000").map((d) => JSON.parse(d));
  const mine = (x) => x.ResourceId === "table/" + process.env.T || x.ResourceId.startsWith("table/" + process.env.T + "/");
  const strip = (x) => { const o = { ...x, ResourceId: x.ResourceId.replace("table/" + process.env.T, "table/T") };
    for (const k of ["CreationTime", "ScalableTargetARN", "RoleARN", "PolicyARN", "Alarms"]) delete o[k]; return o; };
  const key = (x) => x.ResourceId + " " + x.ScalableDimension + " " + (x.PolicyName || "");
  for (const list of [docs[0].ScalableTargets, docs[1].ScalingPolicies])
    console.log(JSON.stringify(list.filter(mine).map(strip).sort((a, b) => key(a) < key(b) ? -1 : 1)));
});'
}
scaling a Model >"$tmp/scaling.model"
scaling b Scaled >"$tmp/scaling.copy"
grep -q 'keep-70-index:ReadCapacityUnits' "$tmp/scaling.model" || fail "autoscaling: the model's policies were not read: $(cat "$tmp/scaling.model")"
cmp -s "$tmp/scaling.model" "$tmp/scaling.copy" || {
    fail "autoscaling: the copy's targets and policies differ"
    diff "$tmp/scaling.model" "$tmp/scaling.copy" | cut -c1-400 >&2
}
run scaled-files 2 "$bin" create-table --mapping "$fav" --copy-autoscaling "${A[@]}"
expect_in "$tmp/scaled-files.err" "--to-mapping and --copy-autoscaling are for --like"
unset AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING

# -- on-demand with an LSI, no encryption key, nothing else: on-demand stays on-demand --------------
aws dynamodb create-table --table-name Plain "${A[@]}" --billing-mode PAY_PER_REQUEST \
    --attribute-definitions AttributeName=pk,AttributeType=S AttributeName=sk,AttributeType=S \
    AttributeName=at,AttributeType=N --key-schema AttributeName=pk,KeyType=HASH AttributeName=sk,KeyType=RANGE \
    --local-secondary-indexes 'IndexName=byAt,KeySchema=[{AttributeName=pk,KeyType=HASH},{AttributeName=at,KeyType=RANGE}],Projection={ProjectionType=KEYS_ONLY}' \
    >/dev/null || fail "cannot create Plain"
run like-plain 0 "$bin" create-table --like Plain --profile a --to-profile b --endpoint-url "$D"
expect_in "$tmp/like-plain.err" "the source uses an AWS owned key, which has no name to give"
same_definition plain a Plain "$(arn_a Plain)" b Plain "$(arn_b Plain)"

# -- migrate --create-table: the target like the source, keys and indexes from --to-mapping --------
run src 0 "$bin" create-table --mapping "$fav" --table Fav "${A[@]}"
aws dynamodb tag-resource --resource-arn "$(arn_a Fav)" --tags Key=app,Value=favorites "${A[@]}" || fail "tag Fav"
aws dynamodb update-time-to-live --table-name Fav "${A[@]}" \
    --time-to-live-specification Enabled=true,AttributeName=gone >/dev/null || fail "ttl Fav"
run fill 0 "$bin" generate --mapping "$fav" --count 20 --table Fav "${A[@]}"
run migrate 0 "$bin" migrate --table Fav --mapping "$fav" --to-table Fav2 --to-mapping "$fav2" \
    --create-table --profile a --to-profile b --endpoint-url "$D"
expect_in "$tmp/migrate.err" "table Fav2 made like Fav"
run migrate-diff 0 "$bin" diff --table Fav --mapping "$fav" --to-table Fav2 --to-mapping "$fav2" \
    --profile a --to-profile b --endpoint-url "$D"
run fav2-keys 0 "$bin" describe --table Fav2 "${B[@]}"
run fav2-check 0 "$bin" migrate --table Fav --mapping "$fav" --to-table Fav2 --to-mapping "$fav2" \
    --profile a --to-profile b --endpoint-url "$D" --dry-run
[ "$(aws dynamodb describe-time-to-live --table-name Fav2 "${B[@]}" --query TimeToLiveDescription.AttributeName --output text)" = gone ] ||
    fail "migrate: the target has not the source's TTL"
[ "$(aws dynamodb list-tags-of-resource --resource-arn "$(arn_b Fav2)" "${B[@]}" --query 'Tags[0].Value' --output text)" = favorites ] ||
    fail "migrate: the target has not the source's tags"

# -- sync --create-table: the same, before the comparison reads the new target --------------------
run sync 0 "$bin" sync --table Fav --mapping "$fav" --to-table Fav3 --to-mapping "$fav2" \
    --create-table --profile a --to-profile b --endpoint-url "$D"
expect_in "$tmp/sync.err" "table Fav3 is ACTIVE, made like Fav"
expect_in "$tmp/sync.err" "60 put, 0 deleted"
[ "$(aws dynamodb describe-time-to-live --table-name Fav3 "${B[@]}" --query TimeToLiveDescription.AttributeName --output text)" = gone ] ||
    fail "sync: the target has not the source's TTL"
finish
