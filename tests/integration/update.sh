#!/usr/bin/env bash
# Re-importing part of a table's data without wiping the rest: import --update changes only the
# attributes the input gives (UpdateItem), so a CSV of some columns leaves the other attributes
# in place and creates what is missing; import --if-not-exists writes only items whose key is
# not in the table (a conditional PutItem) and counts the others as existing, left untouched;
# both resume under --state and are counted in the summary.
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
m="$tmp/users.json"
cat >"$m" <<'JSON'
{"table":{"name":"users","partitionKey":{"name":"pk","type":"S"},
          "sortKey":{"name":"sk","type":"S"}},
 "entities":[{"name":"User","keys":{"pk":"User#{id}","sk":"profile"},
   "fields":[{"name":"id","type":"S"},{"name":"name","type":"S"},{"name":"email","type":"S"},
             {"name":"score","type":"N"},{"name":"select","type":"S"}]}]}
JSON
printf 'id,name,email,score,select\nu1,Ann,ann@x,1.50,a\nu2,Bob,bob@x,2,b\nu3,Cy,cy@x,12345678901234567890123456789012345678,c\n' >"$tmp/User.csv"
run create 0 "$bin" create-table --mapping "$m" "${E[@]}"
run full 0 "$bin" import "$tmp/User.csv" --mapping "$m" "${E[@]}"

# -- --update: only the given columns change; a new key is created -------------------------------
printf 'id,score\nu1,99.25\nu4,7\n' >"$tmp/scores/User.csv" 2>/dev/null ||
    { mkdir -p "$tmp/scores" && printf 'id,score\nu1,99.25\nu4,7\n' >"$tmp/scores/User.csv"; }
run update 0 "$bin" import "$tmp/scores/User.csv" --mapping "$m" --update "${E[@]}" \
    --summary "$tmp/up.json" --allow-extra-columns
expect_in "$tmp/update.err" "updated in place (UpdateItem): 2 items"
[ "$(summary_total "$tmp/up.json" written)" = 2 ] || fail "update: written $(summary_total "$tmp/up.json" written)"
run dump1 0 "$bin" export --table users --format ddb-json --out "$tmp/d1" "${E[@]}"
grep -q '"pk":{"S":"User#u1"}' "$tmp/d1/items.json" || fail "update: u1 is gone"
u1=$(grep '"User#u1"' "$tmp/d1/items.json")
case "$u1" in *'"score":{"N":"99.25"}'*) ;; *) fail "update: u1's score not changed: $u1" ;; esac
case "$u1" in *'"name":{"S":"Ann"}'*'"email":{"S":"ann@x"}'* | *'"email":{"S":"ann@x"}'*'"name":{"S":"Ann"}'*) ;;
*) fail "update: u1 lost the attributes the input did not give: $u1" ;; esac
u4=$(grep '"User#u4"' "$tmp/d1/items.json")
case "$u4" in *'"score":{"N":"7"}'*) ;; *) fail "update: u4 was not created: $u4" ;; esac
# a reserved word as an attribute name (select) goes through the names map
printf 'id,select\nu2,z\n' >"$tmp/scores/User.csv"
run update-reserved 0 "$bin" import "$tmp/scores/User.csv" --mapping "$m" --update "${E[@]}"
run dump2 0 "$bin" export --table users --format ddb-json --out "$tmp/d2" "${E[@]}"
case "$(grep '"User#u2"' "$tmp/d2/items.json")" in *'"select":{"S":"z"}'*'"name":{"S":"Bob"}'* | *'"name":{"S":"Bob"}'*'"select":{"S":"z"}'*) ;;
*) fail "update: a reserved-word attribute" ;; esac

# -- --if-not-exists: existing items are left as they are and counted ------------------------------
printf 'id,name,email,score,select\nu1,CHANGED,x,0,q\nu5,Eve,eve@x,5,e\n' >"$tmp/User.csv"
run absent 0 "$bin" import "$tmp/User.csv" --mapping "$m" --if-not-exists "${E[@]}" \
    --summary "$tmp/abs.json"
[ "$(summary_total "$tmp/abs.json" written)" = 1 ] || fail "if-not-exists: written"
[ "$(summary_total "$tmp/abs.json" existing)" = 1 ] || fail "if-not-exists: existing"
[ "$(summary_total "$tmp/abs.json" not_done)" = 0 ] || fail "if-not-exists: not done"
expect_in "$tmp/absent.err" "existing: 1 item was already in the table, left as it was"
run dump3 0 "$bin" export --table users --format ddb-json --out "$tmp/d3" "${E[@]}"
case "$(grep '"User#u1"' "$tmp/d3/items.json")" in *CHANGED*) fail "if-not-exists: u1 was overwritten" ;; esac
grep -q '"User#u5"' "$tmp/d3/items.json" || fail "if-not-exists: u5 was not written"

# -- usage: not both, and not for deletes -----------------------------------------------------------
run both 2 "$bin" import "$tmp/User.csv" --mapping "$m" --if-not-exists --update "${E[@]}"
run with-delete 2 "$bin" import "$tmp/User.csv" --mapping "$m" --update --delete "${E[@]}"

# -- many items, killed and resumed under --state: every item in the table once, same counts -------
node -e '
console.log("id,name,email,score,select");
for (let i = 0; i < 3000; i++) console.log(`n${i},N${i},n${i}@x,${i}.5,s`);' >"$tmp/many/User.csv" 2>/dev/null ||
    { mkdir -p "$tmp/many" && node -e '
console.log("id,name,email,score,select");
for (let i = 0; i < 3000; i++) console.log(`n${i},N${i},n${i}@x,${i}.5,s`);' >"$tmp/many/User.csv"; }
"$bin" import "$tmp/many/User.csv" --mapping "$m" --if-not-exists "${E[@]}" --concurrency 4 \
    --state "$tmp/m.state" --checkpoint-interval 0 --quiet 2>/dev/null &
pid=$!
kill_after_progress "$pid" "$tmp/m.state" none >/dev/null
wait "$pid" 2>/dev/null
run many-resume 0 "$bin" import "$tmp/many/User.csv" --mapping "$m" --if-not-exists "${E[@]}" \
    --state "$tmp/m.state" --resume --summary "$tmp/many.json"
w=$(summary_total "$tmp/many.json" written)
x=$(summary_total "$tmp/many.json" existing)
[ $((w + x)) = 3000 ] || fail "resume: written $w + existing $x is not the 3000 read"
run dump4 0 "$bin" export --table users --format ddb-json --out "$tmp/d4" "${E[@]}"
[ "$(grep -c '"User#n' "$tmp/d4/items.json")" = 3000 ] || fail "resume: not every item is in the table"

finish
