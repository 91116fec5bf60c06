#!/usr/bin/env bash
# sync against dynalite, through the fault server (which counts the items BatchWriteItem
# carried): a v2 migration damaged (items deleted, changed, and extra ones added: one of an
# entity, one no entity matches) is repaired writing exactly the differences, whatever the
# writer has to retry; --dry-run writes nothing, --no-delete keeps the extras; a record that has
# no place in the target is refused (exit 1), never written; and a same-mapping sync copies an
# unmatched item as it is. diff checks each result.
. "$(dirname "$0")/lib.bash"
m1="$root/formats/favorites.json"
m2="$root/formats/favorites-v2.json"
D=(--endpoint-url "$endpoint")

node "$root/tests/fault-server/fault-server.js" --upstream "$endpoint" --port-file "$tmp/fport" \
    --seed 3 --owner-pid $$ --quiet >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fs="http://127.0.0.1:$(cat "$tmp/fport")"
F=(--endpoint-url "$fs")
control() { curl -s -XPOST "$fs/__control" -d "$1" >/dev/null; }
# the items BatchWriteItem carried to dynalite since the last reset
forwarded() { curl -s "$fs/__stats" | sed -n 's/.*"itemsForwarded": *\([0-9]*\).*/\1/p'; }

run gen 0 "$bin" generate --mapping "$m1" --count 40 --seed 8 --table fav --create-table "${D[@]}" \
    --summary "$tmp/g.json"
total=$(summary_total "$tmp/g.json" written)
run migrate 0 "$bin" migrate --table fav --mapping "$m1" --to-table fav2 --to-mapping "$m2" \
    --create-table "${D[@]}"
run already 0 "$bin" sync --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/s0" --summary "$tmp/s0.json" "${D[@]}"
grep -q "\"equal\":$total,.*\"to_put\":0,\"to_delete\":0" "$tmp/s0.json" ||
    fail "already: $(head -c 300 "$tmp/s0.json")"

# the damage: 3 items deleted, 2 changed (an attribute added to one, a declared field of another
# (title, "ti" in v2) changed), an extra item of an entity and one no entity of v2 matches
run dump2 0 "$bin" export --table fav2 --format ddb-json --out "$tmp/dump2" "${D[@]}"
sed -n '2,4p' "$tmp/dump2/items.json" >"$tmp/delete.json"
{
    sed -n '5s/}}$/,"zzChanged":{"S":"yes"}}}/p' "$tmp/dump2/items.json"
    sed -n '6,$p' "$tmp/dump2/items.json" | grep '"ti":{"S":"' |
        sed -n '$s/"ti":{"S":"/"ti":{"S":"CHANGED /p'
} >"$tmp/change.json"
[ "$(wc -l <"$tmp/change.json")" = 2 ] || fail "damage: 2 changed items expected"
run gen-other 0 "$bin" generate --mapping "$m2" --count 1 --seed 99 --format ddb-json --out "$tmp/other"
head -1 "$(ls "$tmp"/other/*.json | head -1)" >"$tmp/extra.json"
echo '{"PK":{"S":"Stray#1"},"SK":{"S":"nobody"},"note":{"S":"no entity of v2"}}' >>"$tmp/extra.json"
run delete 0 "$bin" import "$tmp/delete.json" --table fav2 --delete "${D[@]}"
run change 0 "$bin" import "$tmp/change.json" --table fav2 "${D[@]}"
run add 0 "$bin" import "$tmp/extra.json" --table fav2 "${D[@]}"
run damaged 1 "$bin" diff --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/d1" --summary "$tmp/d1.json" "${D[@]}"
grep -q '"different":2,"only_in_a":3,"only_in_b":2' "$tmp/d1.json" ||
    fail "damaged: $(head -c 300 "$tmp/d1.json")"

# --dry-run: the counts, exit 1 as diff, and not one item written
control '{"resetStats":true}'
run dry 1 "$bin" sync --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" --dry-run \
    --out "$tmp/s1" --summary "$tmp/s1.json" "${F[@]}"
grep -q '"dry_run":true,"equal":'$((total - 5))',"to_put":5,"to_delete":2,"put":0,"deleted":0' \
    "$tmp/s1.json" || fail "dry: $(grep -o '"sync":{[^}]*}' "$tmp/s1.json")"
[ "$(forwarded)" = 0 ] || fail "dry: $(forwarded) items written"
expect_in "$tmp/dry.err" "dry run, nothing written"
run still-damaged 1 "$bin" diff --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/d2" "${D[@]}"

# --no-delete, with the first batch partly sent back unprocessed: the 5 puts, no more, and the
# two extras kept
control '{"resetStats":true,"rules":[{"kind":"unprocessed","op":"BatchWriteItem","first":1,"count":2}]}'
run no-delete 0 "$bin" sync --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --no-delete --out "$tmp/s2" --summary "$tmp/s2.json" "${F[@]}"
grep -q '"to_put":5,"to_delete":0,"put":5,"deleted":0,"kept":2,"refused":0' "$tmp/s2.json" ||
    fail "no-delete: $(grep -o '"sync":{[^}]*}' "$tmp/s2.json")"
grep -q '"unprocessed":2,' "$tmp/s2.json" || fail "no-delete: no item was retried as unprocessed"
[ "$(forwarded)" = 5 ] || fail "no-delete: $(forwarded) items written, 5 expected"
control '{"clear":true}'
run kept 1 "$bin" diff --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/d3" --summary "$tmp/d3.json" "${D[@]}"
grep -q '"different":0,"only_in_a":0,"only_in_b":2' "$tmp/d3.json" ||
    fail "kept: $(head -c 300 "$tmp/d3.json")"

# sync: the two extras deleted (the one no entity matches too), nothing else written
control '{"resetStats":true}'
run sync 0 "$bin" sync --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/s3" --summary "$tmp/s3.json" "${F[@]}"
grep -q '"to_put":0,"to_delete":2,"put":0,"deleted":2,"kept":0,"refused":0' "$tmp/s3.json" ||
    fail "sync: $(grep -o '"sync":{[^}]*}' "$tmp/s3.json")"
[ "$(forwarded)" = 2 ] || fail "sync: $(forwarded) items written, 2 expected"
expect_in "$tmp/sync.err" "the target holds the source's records: $total equal, 0 put, 2 deleted"
run synced 0 "$bin" diff --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/d4" --summary "$tmp/d4.json" "${D[@]}"
grep -q "\"equal\":$total," "$tmp/d4.json" || fail "synced: $total equal expected"
run count 0 "$bin" export --table fav2 --format ddb-json --out "$tmp/dump3" "${D[@]}"
[ "$(wc -l <"$tmp/dump3/items.json")" = "$total" ] || fail "count: $total items expected in fav2"

# a target item whose type attribute was spoiled matches no entity: its key is the one the
# source's record goes to, so the delete of the stray and the put of the record meet on one
# key, and the put must come last whatever order the comparison finds them in
run dump4 0 "$bin" export --table fav2 --format ddb-json --out "$tmp/dump4" "${D[@]}"
sed -n '10,17s/"_et":{"S":"[A-Z]*"}/"_et":{"S":"SPOILED"}/p' "$tmp/dump4/items.json" >"$tmp/spoil.json"
[ "$(wc -l <"$tmp/spoil.json")" = 8 ] || fail "spoil: 8 items expected"
run spoil 0 "$bin" import "$tmp/spoil.json" --table fav2 "${D[@]}"
run spoiled 0 "$bin" sync --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/s6" --summary "$tmp/s6.json" "${D[@]}"
grep -q '"to_put":8,"to_delete":8,"put":8,"deleted":8,' "$tmp/s6.json" ||
    fail "spoiled: $(grep -o '"sync":{[^}]*}' "$tmp/s6.json")"
run unspoiled 0 "$bin" diff --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/d6" --summary "$tmp/d6.json" "${D[@]}"

# a source item no entity of v1 matches has no place in the re-keyed target: refused with why,
# nothing written, exit 1
run dump1 0 "$bin" export --table fav --format ddb-json --out "$tmp/dump1" "${D[@]}"
echo '{"pk":{"S":"Stray#2"},"sk":{"S":"nobody"}}' >"$tmp/stray.json"
control '{"resetStats":true}'
run refused 1 "$bin" sync "$tmp/dump1/items.json" "$tmp/stray.json" --to-table fav2 \
    --mapping "$m1" --to-mapping "$m2" --out "$tmp/s4" --summary "$tmp/s4.json" "${F[@]}"
grep -q '"to_put":0,"to_delete":0,"put":0,"deleted":0,"kept":0,"refused":1' "$tmp/s4.json" ||
    fail "refused: $(grep -o '"sync":{[^}]*}' "$tmp/s4.json")"
[ "$(forwarded)" = 0 ] || fail "refused: $(forwarded) items written"
expect_in "$tmp/s4/_rejects_sync.ndjson" "has no place in the target"
expect_in "$tmp/s4/_rejects_sync.ndjson" '"Stray#2"'
# a later sync into the same folder with nothing refused leaves no stale rejects file behind
run clean 0 "$bin" sync --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/s4" "${D[@]}"
[ -e "$tmp/s4/_rejects_sync.ndjson" ] && fail "clean: the earlier rejects file is still there"
# a source record that does not decode is not compared: nothing to write, but not proven equal
echo '{"pk":{"S":"Tag#u1"},"sk":{"S":"t1"},"tagName":{"S":"n"},"createTime":{"S":"soon"}}' \
    >"$tmp/bad.json"
run unproven 7 "$bin" sync "$tmp/dump1/items.json" "$tmp/bad.json" --to-table fav2 \
    --mapping "$m1" --to-mapping "$m2" --out "$tmp/s10" --summary "$tmp/s10.json" "${D[@]}"
expect_in "$tmp/unproven.err" "not proven equal: $total equal, 0 put, 0 deleted"
expect_in "$tmp/s10/_rejects_a.ndjson" "createTime"

# the same mapping on both sides: an unmatched item is copied as it is, into an empty table
run stray 0 "$bin" import "$tmp/stray.json" --table fav "${D[@]}"
run create-copy 0 "$bin" create-table --mapping "$m1" --table favcopy "${D[@]}"
control '{"resetStats":true}'
run copy 0 "$bin" sync --table fav --to-table favcopy --mapping "$m1" --out "$tmp/s5" \
    --summary "$tmp/s5.json" "${F[@]}"
grep -q "\"to_put\":$((total + 1)),\"to_delete\":0,\"put\":$((total + 1))," "$tmp/s5.json" ||
    fail "copy: $(grep -o '"sync":{[^}]*}' "$tmp/s5.json")"
[ "$(forwarded)" = $((total + 1)) ] || fail "copy: $(forwarded) items written"
run copy-dump 0 "$bin" export --table favcopy --format ddb-json --out "$tmp/copy" "${D[@]}"
run fav-dump 0 "$bin" export --table fav --format ddb-json --out "$tmp/fav" "${D[@]}"
same_items copy "$tmp/fav/items.json" -- "$tmp/copy/items.json"

# two target items that decode to one record (1 and 01 are one number): the one compared stays,
# the other is an item too many, deleted as an extra is
cat >"$tmp/dups.json" <<'JSON'
{"table":{"name":"dups","partitionKey":{"name":"pk","type":"S"}},
 "entities":[{"name":"Thing","keys":{"pk":"T#{n}"},
   "fields":[{"name":"n","type":"N"},{"name":"v","type":"S"}]}]}
JSON
echo '{"pk":{"S":"T#1"},"v":{"S":"x"}}' >"$tmp/one.json"
printf '%s\n' '{"pk":{"S":"T#1"},"v":{"S":"x"}}' '{"pk":{"S":"T#01"},"v":{"S":"x"}}' >"$tmp/two.json"
run create-dups 0 "$bin" create-table --mapping "$tmp/dups.json" "${D[@]}"
run fill-dups 0 "$bin" import "$tmp/two.json" --table dups "${D[@]}"
run dups-before 0 "$bin" diff "$tmp/one.json" --to-table dups --mapping "$tmp/dups.json" \
    --out "$tmp/d7" --summary "$tmp/d7.json" "${D[@]}"
grep -q '"equal":1,.*"duplicates_in_b":1' "$tmp/d7.json" || fail "dups-before: $(head -c 200 "$tmp/d7.json")"
run dups 0 "$bin" sync "$tmp/one.json" --to-table dups --mapping "$tmp/dups.json" \
    --out "$tmp/s7" --summary "$tmp/s7.json" "${D[@]}"
grep -q '"to_put":0,"to_delete":1,"put":0,"deleted":1,' "$tmp/s7.json" ||
    fail "dups: $(grep -o '"sync":{[^}]*}' "$tmp/s7.json")"
run dups-after 0 "$bin" export --table dups --format ddb-json --out "$tmp/dups-dump" "${D[@]}"
[ "$(wc -l <"$tmp/dups-dump/items.json")" = 1 ] || fail "dups-after: one item expected"

# interrupted while it writes (one slow batch at a time, in input order: a shuffle window would
# hold this small sync's first puts): exit 130, what it wrote said, and a
# second sync writes the rest and no more
run create-copy2 0 "$bin" create-table --mapping "$m1" --table favcopy2 "${D[@]}"
control '{"resetStats":true,"rules":[{"kind":"slow","op":"BatchWriteItem","ms":700}]}'
"$bin" sync --table fav --to-table favcopy2 --mapping "$m1" --concurrency 1 --out "$tmp/s8" \
    --no-shuffle \
    "${F[@]}" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
for _ in $(seq 1 200); do [ "$(forwarded)" -gt 0 ] && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
[ $? = 130 ] || fail "interrupted: exit 130 expected"
control '{"clear":true}'
done_before=$(sed -n 's/.*stopped after \([0-9]*\) put, 0 deleted.*/\1/p' "$tmp/int.err")
[ -n "$done_before" ] && [ "$done_before" -gt 0 ] && [ "$done_before" -le "$total" ] ||
    fail "interrupted: $(tail -2 "$tmp/int.err")"
run resync 0 "$bin" sync --table fav --to-table favcopy2 --mapping "$m1" --out "$tmp/s9" \
    --summary "$tmp/s9.json" "${F[@]}"
grep -q "\"to_put\":$((total + 1 - done_before))," "$tmp/s9.json" ||
    fail "resync: $done_before put before, $(grep -o '"sync":{[^}]*}' "$tmp/s9.json")"
run resynced 0 "$bin" diff --table fav --to-table favcopy2 --mapping "$m1" --out "$tmp/d9" "${D[@]}"
# a line of progress while it writes (slow batches, one at a time, for two seconds or so)
run create-copy3 0 "$bin" create-table --mapping "$m1" --table favcopy3 "${D[@]}"
control '{"rules":[{"kind":"slow","op":"BatchWriteItem","ms":400}]}'
run slow 0 "$bin" sync --table fav --to-table favcopy3 --mapping "$m1" --concurrency 1 \
    --progress log --progress-interval 1 --out "$tmp/s11" "${F[@]}"
control '{"clear":true}'
expect_in "$tmp/slow.err" "ddbpipe sync: writing: 0 deleted, "

# usage: the target must be a table
run files-target 2 "$bin" sync --table fav "$tmp/dump1/items.json" --mapping "$m1" "${D[@]}"
expect_in "$tmp/files-target.err" "give the target as --to-table"
finish
