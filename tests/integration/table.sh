#!/usr/bin/env bash
# Files -> table -> files against dynalite: every attribute, type, 38-digit number and binary
# comes back; parallel segments and segment ranges; migrate to the v2 layout and back; the
# real AWS export (full, then incremental) imported and counted with a Scan.
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")

# -- movies: sets, maps, lists, binary, 38-digit numbers ---------------------------------------
run create 0 "$bin" create-table --mapping "$root/formats/movies.json" --table movies "${E[@]}"
run import-seed 0 "$bin" import "$root"/samples/movies/seed/*.csv --table movies \
    --mapping "$root/formats/movies.json" "${E[@]}" --summary "$tmp/s1.json"
n_seed=$(summary_total "$tmp/s1.json" read)
[ "$(summary_total "$tmp/s1.json" written)" = "$n_seed" ] || fail "import-seed: not all written"
run encode-seed 0 "$bin" encode "$root"/samples/movies/seed/*.csv --mapping "$root/formats/movies.json" \
    --out "$tmp/expected"
run export-4 0 "$bin" export --table movies --segments 4 --format ddb-json --out "$tmp/dump" "${E[@]}"
same_items movies-backup "$tmp"/expected/*.json -- "$tmp/dump/items.json"
grep -q '"budget":{"N":"[0-9]\{38\}"}' "$tmp/dump/items.json" || fail "no 38-digit budget came back"
grep -q '"poster":{"B":' "$tmp/dump/items.json" || fail "no binary came back"
grep -q '"signature":{"BS":' "$tmp/dump/items.json" || fail "no binary set came back"

# the same through per-entity CSV records and back
run export-csv 0 "$bin" export --table movies --segments 3 --mapping "$root/formats/movies.json" \
    --format csv --out "$tmp/csv" "${E[@]}"
run encode-csv 0 "$bin" encode "$tmp"/csv/*.csv --mapping "$root/formats/movies.json" --out "$tmp/fromcsv"
same_items movies-csv-roundtrip "$tmp"/expected/*.json -- "$tmp"/fromcsv/*.json

# segment ranges: two hosts sharing 4 segments read every item exactly once
run range-a 0 "$bin" export --table movies --segments 4 --segment-range 0-1 --format ddb-json \
    --out "$tmp/ra" "${E[@]}"
run range-b 0 "$bin" export --table movies --segments 4 --segment-range 2-3 --format ddb-json \
    --out "$tmp/rb" "${E[@]}" --consistent-read --page-size 7
same_items movies-ranges "$tmp/dump/items.json" -- "$tmp/ra/items.json" "$tmp/rb/items.json"
run bad-range 2 "$bin" export --table movies --segments 4 --segment-range 3-5 --out "$tmp/rc" "${E[@]}"

# a backup without a mapping can be imported again
run restore 0 "$bin" import "$tmp/dump/items.json" --table movies-copy --create-table \
    --mapping "$root/formats/movies.json" "${E[@]}"
run export-copy 0 "$bin" export --table movies-copy --format ddb-json --out "$tmp/copy" "${E[@]}"
same_items movies-restore "$tmp/dump/items.json" -- "$tmp/copy/items.json"

# count_within SECONDS TABLE N: the table's item count once it is N, or as it is after SECONDS
count_within() {
    local n=0
    for _ in $(seq 1 $(($1 * 10))); do
        n=$(ddb_call Scan "{\"TableName\":\"$2\",\"Select\":\"COUNT\"}" |
            sed -n 's/.*"Count":\([0-9]*\).*/\1/p')
        [ "${n:-0}" = "$3" ] && break
        sleep 0.1
    done
    echo "${n:-0}"
}

# an import from a FIFO whose producer writes ten items and pauses: they are stored during the
# pause (before: the format sniff waited for a MiB of input, then a batch short of 25 items for
# the next item, or the end of the input)
run pause-create 0 "$bin" create-table --mapping "$root/formats/movies.json" --table pause "${E[@]}"
mkfifo "$tmp/pause.fifo"
"$bin" import "$tmp/pause.fifo" --table pause --quiet "${E[@]}" 2>"$tmp/pause.err" &
pause_pid=$!
exec {feed}>"$tmp/pause.fifo"
seq 1 10 | sed 's/.*/{"Item":{"pk":{"S":"Pause#&"},"sk":{"S":"1"}}}/' >&"$feed"
stored=$(count_within 15 pause 10)
[ "$stored" = 10 ] || fail "pause: $stored of the 10 items written before the pause are stored"
exec {feed}>&-
wait "$pause_pid" || fail "pause: the import failed: $(tail -3 "$tmp/pause.err")"

# the same for plain records (NDJSON) and CSV, told apart by their first whole lines, and for a
# format given (--columns: CSV without a header row) (before: a MiB of input, or its end, before
# the first record)
total=10
for kind in ndjson csv csv-given; do
    mkfifo "$tmp/pause-$kind.fifo"
    fmt=()
    [ $kind = csv-given ] && fmt=(--columns pk,sk,n:N)
    "$bin" import "$tmp/pause-$kind.fifo" --table pause --quiet "${fmt[@]}" "${E[@]}" \
        2>"$tmp/pause-$kind.err" &
    pause_pid=$!
    exec {feed}>"$tmp/pause-$kind.fifo"
    if [ $kind = ndjson ]; then
        seq 1 10 | sed "s/.*/{\"pk\":\"P-$kind#&\",\"sk\":\"1\",\"n\":&}/"
    else
        [ $kind = csv ] && echo 'pk,sk,n'
        seq 1 10 | sed "s/.*/P-$kind#&,1,&/"
    fi >&"$feed"
    total=$((total + 10))
    stored=$(count_within 15 pause $total)
    [ "$stored" = $total ] || fail "pause $kind: $stored of the $total items stored during the pause"
    exec {feed}>&-
    wait "$pause_pid" || fail "pause $kind: the import failed: $(tail -3 "$tmp/pause-$kind.err")"
done

# the same for a migration, whose items are decoded on two threads in batches of 256: the batch
# being read when the input pauses is taken as it is (before: its items waited for the next 256
# or the end of the input); 20,010 items, so that whole batches go before it
mkfifo "$tmp/mig.fifo"
"$bin" migrate "$tmp/mig.fifo" --mapping "$root/formats/favorites.json" \
    --to-mapping "$root/formats/favorites.json" --to-table migpause --create-table --quiet \
    "${E[@]}" 2>"$tmp/mig.err" &
mig_pid=$!
exec {feed}>"$tmp/mig.fifo"
seq 1 20010 | sed 's/.*/{"Item":{"pk":{"S":"Tag#u&"},"sk":{"S":"t1"},"tagName":{"S":"....."}}}/' >&"$feed"
stored=$(count_within 15 migpause 20010)
[ "$stored" = 20010 ] ||
    fail "migrate pause: $stored of the 20010 items written before the pause are stored"
exec {feed}>&-
wait "$mig_pid" || fail "migrate pause: the run failed: $(tail -3 "$tmp/mig.err")"

# items go as the input wrote them (spacing, escapes, bare lines): what lands is what was read
cat >"$tmp/odd.json" <<'EOF'
{"Item" : { "pk" : {"S":"Odd#\u00e9\"q\/"} , "sk":{ "S" : "1" }, "b":{"B":"AAEC"}, "n":{"N":"1.50"}, "l":{"L":[{"S":"x"},{"NULL":true}, {"M":{"k":{"BOOL":false}}}]}}}
{"pk":{"S":"Odd#bare"},"sk":{"S":"2"},"ns":{"NS":["1","2.0"]},"t":{"S":"tab\there"}}
EOF
run odd-create 0 "$bin" create-table --mapping "$root/formats/movies.json" --table odd "${E[@]}"
run odd-import 0 "$bin" import "$tmp/odd.json" --table odd "${E[@]}"
run odd-dump 0 "$bin" export --table odd --format ddb-json --out "$tmp/odd" "${E[@]}"
same_items odd-text "$tmp/odd.json" -- "$tmp/odd/items.json"
grep -q 'Odd#é\\"q/' "$tmp/odd/items.json" || fail "the escaped key did not come back"

# every item is checked against the table's own keys before it can spoil a batch, also when the
# pipeline has checked the rest of it already: only the good one is written
printf '%s\n' '{"Item":{"pk":{"S":"Key#good"},"sk":{"S":"1"},"n":{"N":"7"}}}' \
    '{"Item":{"pk":{"N":"1"},"sk":{"S":"2"},"n":{"N":"7"}}}' \
    '{"Item":{"pk":{"S":"Key#nosk"},"n":{"N":"7"}}}' \
    '{"Item":{"pk":{"S":"Key#emptysk"},"sk":{"S":""},"n":{"N":"7"}}}' \
    '{"Item":{"pk":{"S":"Key#badn"},"sk":{"S":"5"},"n":{"N":"7x"}}}' >"$tmp/keys.json"
run keys-import 1 "$bin" import "$tmp/keys.json" --table odd "${E[@]}" --summary "$tmp/keys.sum" \
    --rejects "$tmp/keys.rej"
[ "$(summary_total "$tmp/keys.sum" written)" = 1 ] || fail "keys: 1 written expected"
[ "$(summary_total "$tmp/keys.sum" rejected)" = 4 ] || fail "keys: 4 rejected expected"
[ "$(wc -l <"$tmp/keys.rej")" = 4 ] || fail "keys: 4 lines in the rejects file expected"
for want in 'partition key' 'sort key' 'Key#emptysk' 'number'; do
    grep -q "$want" "$tmp/keys.rej" || fail "keys: no reject mentions '$want'"
done

# -- favorites: migrate to v2 and back ---------------------------------------------------------
run fav-import 0 "$bin" import "$root"/samples/favorites/seed/*.csv --table fav --create-table \
    --mapping "$root/formats/favorites.json" "${E[@]}" --summary "$tmp/fav-import.json"
n_fav=$(summary_total "$tmp/fav-import.json" written)
run fav-dry 0 "$bin" migrate --table fav --mapping "$root/formats/favorites.json" --to-table fav2 \
    --to-mapping "$root/formats/favorites-v2.json" --dry-run --create-table "${E[@]}"
grep -q "dry run: nothing written to fav2" "$tmp/fav-dry.err" &&
    grep -Eq "^ +write +fav2 +$n_fav " "$tmp/fav-dry.err" || fail "dry run report"
# a dry run writes nothing: its column is not headed "written"
grep -q "  entity  *read  *would write" "$tmp/fav-dry.err" || fail "dry run: the column is not headed 'would write'"
run fav-to-v2 0 "$bin" migrate --table fav --mapping "$root/formats/favorites.json" --to-table fav2 \
    --to-mapping "$root/formats/favorites-v2.json" --create-table "${E[@]}"
run fav2-dump 0 "$bin" export --table fav2 --format ddb-json --out "$tmp/fav2" "${E[@]}"
grep -q '"_et":{"S":"DATATAG"}' "$tmp/fav2/items.json" || fail "v2 items lack the entity type"
run fav-back 0 "$bin" migrate --table fav2 --mapping "$root/formats/favorites-v2.json" \
    --to-table fav3 --to-mapping "$root/formats/favorites.json" --create-table "${E[@]}"
run fav-dump 0 "$bin" export --table fav --format ddb-json --out "$tmp/fav1" "${E[@]}"
run fav3-dump 0 "$bin" export --table fav3 --format ddb-json --out "$tmp/fav3" "${E[@]}"
same_items favorites-migrate-roundtrip "$tmp/fav1/items.json" -- "$tmp/fav3/items.json"

# -- the real AWS export: 133199 items in, 133199 counted by a Scan ---------------------------
if [ -d "$shared/aws-export" ]; then
    cat >"$tmp/unicorn.json" <<'JSON'
{"table":{"name":"unicorn_activities","partitionKey":{"name":"name","type":"S"}},
 "entities":[{"name":"Unicorn","keys":{"name":"{name}"},
   "fields":[{"name":"name"},{"name":"activities","type":"L"}]}]}
JSON
    run aws-import 0 "$bin" import "$shared/aws-export/01716790307109-5f9d6aaa" --table unicorn \
        --mapping "$tmp/unicorn.json" --create-table --concurrency 32 "${E[@]}" --summary "$tmp/s2.json"
    [ "$(summary_total "$tmp/s2.json" written)" = 133199 ] || fail "aws-import: 133199 written expected"
    run aws-count 0 "$bin" export --table unicorn --segments 8 --out "$tmp/unicorn" "${E[@]}" \
        --summary "$tmp/s3.json"
    [ "$(summary_total "$tmp/s3.json" read)" = 133199 ] || fail "aws-count: Scan found $(summary_total "$tmp/s3.json" read)"
    # the incremental export: 1 insert, 8 updates, 6 deletes applied to the table
    run aws-incr 0 "$bin" import "$shared/aws-export/01716791487000-6ddcf8cf" --table unicorn "${E[@]}" \
        --summary "$tmp/s4.json"
    grep -q '"changes":{"inserted":1,"modified":8,"removed":6}' "$tmp/s4.json" || fail "incremental changes"
    [ "$(summary_total "$tmp/s4.json" deleted)" = 6 ] || fail "aws-incr: 6 deletes expected"
    run aws-count2 0 "$bin" export --table unicorn --segments 8 --format ddb-json --out "$tmp/unicorn2" \
        "${E[@]}" --summary "$tmp/s5.json"
    [ "$(summary_total "$tmp/s5.json" read)" = 133194 ] || fail "after incremental: 133194 expected, got $(summary_total "$tmp/s5.json" read)"
    grep -q '"name":{"S":"Olwen4734"}' "$tmp/unicorn2/items.json" || fail "inserted item missing"
    grep -q '"name":{"S":"Chant3756"}' "$tmp/unicorn2/items.json" && fail "deleted item still there"
    # the same changes as ddbpipe writes them (items.json and deletes.json, {"Item":{key}} lines),
    # imported back: the deletes delete. Before, they were put as key-only items.
    run inc-ddb 0 "$bin" export "$shared/aws-export/01716791487000-6ddcf8cf" --format ddb-json \
        --out "$tmp/inc-ddb"
    cp "$tmp/inc-ddb/deletes.json" "$tmp/six-keys.json"
    run inc-table 0 "$bin" create-table --mapping "$tmp/unicorn.json" --table unicorn3 "${E[@]}"
    run inc-six 0 "$bin" import "$tmp/six-keys.json" --table unicorn3 "${E[@]}"
    run inc-back 0 "$bin" import "$tmp/inc-ddb" --table unicorn3 "${E[@]}" --summary "$tmp/s6.json"
    [ "$(summary_total "$tmp/s6.json" deleted)" = 6 ] ||
        fail "inc-back: 6 deletes expected, got $(summary_total "$tmp/s6.json" deleted)"
    run inc-count 0 "$bin" export --table unicorn3 --out "$tmp/unicorn3" "${E[@]}" --summary "$tmp/s7.json"
    [ "$(summary_total "$tmp/s7.json" read)" = 9 ] ||
        fail "inc-back: 9 items expected in the table, got $(summary_total "$tmp/s7.json" read)"
fi

# -- errors ------------------------------------------------------------------------------------
run missing-table 2 "$bin" import "$root"/samples/favorites/seed/Tag.csv --table nope \
    --mapping "$root/formats/favorites.json" "${E[@]}"
grep -q "add --create-table" "$tmp/missing-table.err" || fail "missing table hint"
run describe 0 "$bin" describe --table fav "${E[@]}"
grep -q "GSI gsiTwo" "$tmp/describe.out" || fail "describe lists the GSIs"
run no-credentials 2 env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$bin" describe --table fav "${E[@]}"
grep -q "AWS_ACCESS_KEY_ID" "$tmp/no-credentials.err" || fail "missing credentials message"
grep -q "test-secret-not-real" "$tmp"/*.err && fail "a secret appeared in output"

finish
