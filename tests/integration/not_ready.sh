#!/usr/bin/env bash
# Tables that are not ready, as a script meets them: a table created by another client a moment
# earlier (still CREATING: dynalite takes DYNALITE_TABLE_MS, here 1.5 s, to make it ACTIVE) is
# waited for by import, export --table and migrate; --wait-active bounds the wait; a table that
# does not exist, or is deleted during a run, stops the run with one error naming the table,
# region and endpoint, and its items are "not done", never rejects.
export DYNALITE_TABLE_MS=1500
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
fav="$root/formats/favorites.json"

# The seed's own CloudFormation table (serverless.yml in seed 004): provisioned, 3 LSIs, 2 GSIs.
create_favorite_table() {
    local lsi='' gsi='' n
    for n in One Two Three; do
        lsi="$lsi${lsi:+,}{\"IndexName\":\"lsi$n\",\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"lsi${n}Sk\",\"KeyType\":\"RANGE\"}],\"Projection\":{\"ProjectionType\":\"ALL\"}}"
    done
    for n in One Two; do
        gsi="$gsi${gsi:+,}{\"IndexName\":\"gsi$n\",\"KeySchema\":[{\"AttributeName\":\"gsi${n}Pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"gsi${n}Sk\",\"KeyType\":\"RANGE\"}],\"Projection\":{\"ProjectionType\":\"ALL\"},\"ProvisionedThroughput\":{\"ReadCapacityUnits\":1,\"WriteCapacityUnits\":1}}"
    done
    local defs='' a
    for a in pk sk gsiOnePk gsiOneSk gsiTwoPk gsiTwoSk lsiOneSk lsiTwoSk lsiThreeSk; do
        defs="$defs${defs:+,}{\"AttributeName\":\"$a\",\"AttributeType\":\"S\"}"
    done
    ddb_call CreateTable "{\"TableName\":\"$1\",\"AttributeDefinitions\":[$defs],\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],\"ProvisionedThroughput\":{\"ReadCapacityUnits\":1,\"WriteCapacityUnits\":1},\"BillingMode\":\"PROVISIONED\",\"LocalSecondaryIndexes\":[$lsi],\"GlobalSecondaryIndexes\":[$gsi]}" >"$tmp/create-$1.json"
    grep -q '"TableStatus":"CREATING"' "$tmp/create-$1.json" || fail "CreateTable $1: $(cat "$tmp/create-$1.json")"
}

node "$root/tests/seeds/seed-writers.js" favorites 300 11 >"$tmp/items.json"
n_items=$(wc -l <"$tmp/items.json")

# -- create-table by another client, then import at once ----------------------------------------
create_favorite_table develop.Favorite
[ "$(table_status develop.Favorite)" = CREATING ] || fail "the table should still be CREATING"
run import-now 0 "$bin" import "$tmp/items.json" --table develop.Favorite --mapping "$fav" "${E[@]}" \
    --summary "$tmp/import-now.json"
grep -q "develop.Favorite is CREATING.*waiting for it to become ACTIVE" "$tmp/import-now.err" ||
    fail "import did not say it waits for the table"
[ "$(summary_total "$tmp/import-now.json" written)" = "$n_items" ] || fail "import-now: not all written"

# -- export --table and migrate right after the tables were created ------------------------------
create_favorite_table scratch
run export-now 0 "$bin" export --table scratch --format ddb-json --out "$tmp/scratch" "${E[@]}"
grep -q "scratch is CREATING" "$tmp/export-now.err" || fail "export did not wait for the table"
create_favorite_table develop.Favorite2
run migrate-now 0 "$bin" migrate --table develop.Favorite --mapping "$fav" --to-table develop.Favorite2 \
    --to-mapping "$fav" "${E[@]}" --summary "$tmp/migrate-now.json"
grep -q "develop.Favorite2 is CREATING" "$tmp/migrate-now.err" || fail "migrate did not wait for its target"
run dump-1 0 "$bin" export --table develop.Favorite --format ddb-json --out "$tmp/d1" "${E[@]}"
run dump-2 0 "$bin" export --table develop.Favorite2 --format ddb-json --out "$tmp/d2" "${E[@]}"
same_items migrate-now "$tmp/items.json" -- "$tmp/d2/items.json"
same_items import-now "$tmp/items.json" -- "$tmp/d1/items.json"

# -- --wait-active bounds the wait ----------------------------------------------------------------
create_favorite_table impatient
run no-wait 5 "$bin" import "$tmp/items.json" --table impatient --mapping "$fav" "${E[@]}" --wait-active 0
grep -q "table impatient is still CREATING after 0 s" "$tmp/no-wait.err" || fail "no-wait message"
grep -q "raise --wait-active" "$tmp/no-wait.err" || fail "no-wait hint"

# -- a table that does not exist: one error naming table, region and endpoint ---------------------
run missing 2 "$bin" import "$tmp/items.json" --table develop.Favorit --mapping "$fav" "${E[@]}"
grep -q "table develop.Favorit does not exist in region us-east-1, endpoint $endpoint" "$tmp/missing.err" ||
    fail "missing-table message: $(head -3 "$tmp/missing.err")"
[ "$(grep -c 'does not exist' "$tmp/missing.err")" = 1 ] || fail "missing table: more than one error"

# -- the table deleted during a run: the run stops, nothing is rejected, the rest is not done -----
"$bin" create-table --mapping "$fav" --table doomed "${E[@]}" 2>/dev/null || fail "create doomed"
node "$root/tests/seeds/seed-writers.js" favorites 3000 12 >"$tmp/many.json"
"$bin" import "$tmp/many.json" --table doomed --mapping "$fav" "${E[@]}" --max-wcu 400 \
    --summary "$tmp/doomed.json" --rejects "$tmp/doomed-rejects.ndjson" >"$tmp/doomed.out" 2>"$tmp/doomed.err" &
pid=$!
sleep 1.5
ddb_call DeleteTable '{"TableName":"doomed"}' >/dev/null
wait "$pid"
code=$?
[ "$code" = 5 ] || fail "deleted table: exit $code, expected 5"
grep -q "table doomed does not exist in region us-east-1, endpoint $endpoint" "$tmp/doomed.err" ||
    fail "deleted-table message: $(grep -i error "$tmp/doomed.err" | head -2)"
[ "$(summary_total "$tmp/doomed.json" rejected)" = 0 ] || fail "deleted table: items became rejects"
[ ! -s "$tmp/doomed-rejects.ndjson" ] || fail "deleted table: a rejects file was written"
read_n=$(summary_total "$tmp/doomed.json" read)
w=$(summary_total "$tmp/doomed.json" written)
nd=$(summary_total "$tmp/doomed.json" not_done)
[ "$nd" -gt 0 ] || fail "deleted table: nothing is not done"
[ $((w + nd)) = "$read_n" ] || fail "deleted table: read $read_n != written $w + not done $nd"
grep -q "not done" "$tmp/doomed.err" || fail "deleted table: the summary does not show not done"
grep -q '"complete":false' "$tmp/doomed.json" || fail "deleted table: summary says complete"

finish
