#!/usr/bin/env bash
# generate into a table and diff against dynalite: a table against its export (items and record
# files), generate --table against generate to files with the same seed, a table against its
# v2 migration (--max-rcu, segments), and a changed, a deleted and an added item found again.
# The mappings come from formats/ at run time.
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
m1="$root/formats/favorites.json"
m2="$root/formats/favorites-v2.json"

run gen-table 0 "$bin" generate --mapping "$m1" --count 60 --seed 5 --table fav --create-table \
    "${E[@]}" --summary "$tmp/g.json"
total=$(summary_total "$tmp/g.json" written)
[ "$total" -gt 100 ] || fail "gen-table: $total written"
[ "$(summary_total "$tmp/g.json" rejected)" = 0 ] || fail "gen-table: rejects"

# the same seed to files gives the same records as the table holds
run gen-files 0 "$bin" generate --mapping "$m1" --count 60 --seed 5 --format ddb-json --out "$tmp/gen"
run table-vs-generated 0 "$bin" diff --table fav "$tmp/gen" --mapping "$m1" --out "$tmp/d1" \
    --summary "$tmp/s1.json" "${E[@]}"
grep -q "\"equal\":$total," "$tmp/s1.json" || fail "table-vs-generated: $total equal expected"

# generate | import: the pipe fills a table with the same records
"$bin" generate --mapping "$m1" --count 60 --seed 5 --out - --quiet 2>"$tmp/pipe.err" |
    "$bin" import - --table fav-piped --mapping "$m1" --create-table "${E[@]}" --quiet 2>>"$tmp/pipe.err" ||
    fail "generate | import: $(tail -3 "$tmp/pipe.err")"
run piped 0 "$bin" diff --table fav --to-table fav-piped --mapping "$m1" --out "$tmp/d0" "${E[@]}"

# a table against its export: items, and the per-entity record files of an export with the mapping
run dump 0 "$bin" export --table fav --format ddb-json --out "$tmp/dump" "${E[@]}"
run table-vs-dump 0 "$bin" diff --table fav "$tmp/dump" --mapping "$m1" --out "$tmp/d2" "${E[@]}"
run records 0 "$bin" export --table fav --mapping "$m1" --format csv --out "$tmp/rec" --segments 3 "${E[@]}"
run dump-vs-table 0 "$bin" diff "$tmp/rec" --to-table fav --mapping "$m1" --out "$tmp/d3" "${E[@]}"
# without a mapping: items by the table's key schema (from DescribeTable)
run table-plain 0 "$bin" diff --table fav "$tmp/dump/items.json" --out "$tmp/d4" "${E[@]}"

# the v2 migration holds the same records
run migrate 0 "$bin" migrate --table fav --mapping "$m1" --to-table fav2 --to-mapping "$m2" \
    --create-table "${E[@]}"
run v1-v2 0 "$bin" diff --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --segments 2 --max-rcu 200 --out "$tmp/d5" --summary "$tmp/s5.json" "${E[@]}"
grep -q "\"equal\":$total," "$tmp/s5.json" || fail "v1-v2: $total equal expected"

# change one v2 item (an attribute the mapping does not declare), delete one, add one
run dump2 0 "$bin" export --table fav2 --format ddb-json --out "$tmp/dump2" "${E[@]}"
sed -n '1s/}}$/,"zzChanged":{"S":"yes"}}}/p' "$tmp/dump2/items.json" >"$tmp/change.json"
sed -n '2p' "$tmp/dump2/items.json" >"$tmp/delete.json"
run gen-other 0 "$bin" generate --mapping "$m2" --count 1 --seed 99 --format ddb-json --out "$tmp/other"
run change 0 "$bin" import "$tmp/change.json" --table fav2 "${E[@]}"
run delete 0 "$bin" import "$tmp/delete.json" --table fav2 --delete "${E[@]}"
run add 0 "$bin" import "$(ls "$tmp"/other/*.json | head -1)" --table fav2 "${E[@]}"
run v1-v2-changed 1 "$bin" diff --table fav --to-table fav2 --mapping "$m1" --to-mapping "$m2" \
    --out "$tmp/d6" --summary "$tmp/s6.json" "${E[@]}"
grep -q '"different":1,"only_in_a":1,"only_in_b":1' "$tmp/s6.json" || fail "v1-v2-changed: $(head -c 200 "$tmp/s6.json")"
grep -q '"zzChanged":{"a":null,"b":{"S":"yes"}}' "$tmp/d6/differences.ndjson" ||
    fail "v1-v2-changed: the changed attribute is not listed"
# a sample of the keys: the same keys of both sides
run sample 0 "$bin" diff --table fav "$tmp/gen" --mapping "$m1" --sample 0.5 --out "$tmp/d7" \
    --summary "$tmp/s7.json" "${E[@]}"
grep -q '"sample":0.5' "$tmp/s7.json" || fail "sample: not recorded"
n=$(grep -o '"compared_in_a":[0-9]*' "$tmp/s7.json" | cut -d: -f2)
[ "$n" -gt 0 ] && [ "$n" -lt "$total" ] || fail "sample: compared $n of $total"
grep -q "\"compared_in_b\":$n," "$tmp/s7.json" || fail "sample: the sides compared different shares"
finish
