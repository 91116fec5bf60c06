#!/usr/bin/env bash
# ddbpipe generate against every mapping in formats/ (read at run time): the items decode with
# no reject, the records (NDJSON, CSV) encode back to exactly those items, the same --seed gives
# the same bytes and another seed other ones; and the command line's own errors.
. "$(dirname "$0")/lib.bash"
canon="$tools/ddbpipe-canon"

for m in "$root"/formats/*.json; do
    d=$(basename "$m" .json)
    out="$tmp/$d"
    check "$d-items" 0 "$bin" generate --mapping "$m" --count 60 --seed 7 --format ddb-json \
        --out "$out/items" --quiet --summary "$out/gen.json" || continue
    n=$(json_number "$out/gen.json" written)
    [ "$n" -gt 0 ] || fail "$d: nothing generated"
    # what generate writes as items, export --mapping decodes: no reject, nothing unmatched
    check "$d-export" 0 "$bin" export "$out"/items/*.json --mapping "$m" --out "$out/rec" \
        --format ddb-json --summary "$out/export.json" --quiet
    [ "$(json_number "$out/export.json" read)" = "$n" ] || fail "$d: export read $(json_number "$out/export.json" read) of $n"
    [ "$(json_number "$out/export.json" written)" = "$n" ] || fail "$d: export decoded $(json_number "$out/export.json" written) of $n"
    [ "$(json_number "$out/export.json" rejected)" = 0 ] || fail "$d: export rejected generated items"
    [ "$(json_number "$out/export.json" unmatched)" = 0 ] || fail "$d: generated items no entity matches"
    "$canon" "$out"/items/*.json | LC_ALL=C sort >"$out/items.canon"
    # the records of the same seed encode to the same items, through each record format
    for fmt in ndjson csv; do
        check "$d-$fmt" 0 "$bin" generate --mapping "$m" --count 60 --seed 7 --format "$fmt" \
            --out "$out/$fmt" --quiet || continue
        check "$d-$fmt-encode" 0 "$bin" encode "$out/$fmt" --mapping "$m" --out "$out/$fmt-items" --quiet
        "$canon" "$out/$fmt-items"/*.json | LC_ALL=C sort >"$out/$fmt.canon"
        cmp -s "$out/items.canon" "$out/$fmt.canon" ||
            fail "$d: $fmt records do not encode back to the generated items"
    done
    # same seed: the same bytes; another seed: other records
    check "$d-again" 0 "$bin" generate --mapping "$m" --count 60 --seed 7 --format ddb-json \
        --out "$out/again" --quiet
    for f in "$out"/items/*.json; do
        cmp -s "$f" "$out/again/$(basename "$f")" || fail "$d: seed 7 gave other bytes in $(basename "$f")"
    done
    check "$d-seed8" 0 "$bin" generate --mapping "$m" --count 60 --seed 8 --format ddb-json \
        --out "$out/seed8" --quiet
    cat "$out"/items/*.json | cmp -s - <(cat "$out"/seed8/*.json) && fail "$d: seeds 7 and 8 gave the same items"
done

# gzip: one file per entity
m="$root/formats/facility-capacity.json"
check gzip 0 "$bin" generate --mapping "$m" --count 5 --gzip --out "$tmp/gz" --quiet
for f in "$tmp"/gz/*.ndjson.gz; do
    gzip -t "$f" || fail "gzip: $f is not gzip"
done
[ "$(ls "$tmp"/gz/*.ndjson.gz | wc -l)" -ge 2 ] || fail "gzip: one file per entity expected"

# items on standard output, for a pipe: the same items as in files
"$bin" generate --mapping "$m" --count 5 --out - --quiet >"$tmp/stdout.json" 2>"$tmp/gen.err" ||
    fail "stdout: exit $?"
check stdout-files 0 "$bin" generate --mapping "$m" --count 5 --format ddb-json --out "$tmp/sf" --quiet
"$tools/ddbpipe-canon" "$tmp/stdout.json" | LC_ALL=C sort >"$tmp/so.canon"
"$tools/ddbpipe-canon" "$tmp"/sf/*.json | LC_ALL=C sort >"$tmp/sf.canon"
cmp -s "$tmp/so.canon" "$tmp/sf.canon" || fail "stdout: other items than in files"
check stdout-csv 2 "$bin" generate --mapping "$m" --count 5 --out - --format csv &&
    expect_in "$tmp/stderr" "DynamoDB JSON lines"

# --state: killed mid-run (kill -9) and resumed, the files are those of an uninterrupted run
m1="$root/formats/favorites.json"
big=(--mapping "$m1" --count Tag=5k,FavoriteData=20k,FavoriteDataTag=25k --seed 2 --format csv)
check whole 0 "$bin" generate "${big[@]}" --out "$tmp/whole" --quiet
"$bin" generate "${big[@]}" --out "$tmp/part" --state "$tmp/gen.state" --checkpoint-interval 0 \
    --quiet 2>/dev/null &
pid=$!
if kill_after_progress "$pid" "$tmp/gen.state" none >/dev/null; then
    wait "$pid" 2>/dev/null
    check resumed 0 "$bin" generate "${big[@]}" --out "$tmp/part" --state "$tmp/gen.state" --resume --quiet
    # every file, ddbpipe's own under _ddbpipe/ too (but the summary, which holds times)
    for n in $(cd "$tmp/whole" && find . -type f ! -name summary.json | sed 's#^\./##'); do
        cmp -s "$tmp/whole/$n" "$tmp/part/$n" || fail "resume: $n differs"
    done
else
    wait "$pid" 2>/dev/null
    echo "note: the run ended before it could be killed; resume not tested" >&2
fi

# usage errors
check no-count 2 "$bin" generate --mapping "$m" --out "$tmp/x" && expect_in "$tmp/stderr" "--count"
check no-out 2 "$bin" generate --mapping "$m" --count 5 && expect_in "$tmp/stderr" "--out DIR is required"
check input-given 2 "$bin" generate some.json --mapping "$m" --count 5 --out "$tmp/x" &&
    expect_in "$tmp/stderr" "reads no input"
check bad-count 2 "$bin" generate --mapping "$m" --count Nope=5 --out "$tmp/x" &&
    expect_in "$tmp/stderr" "not an entity"
check bad-number 2 "$bin" generate --mapping "$m" --count 5x --out "$tmp/x" && expect_in "$tmp/stderr" "bad --count"
check out-and-table 2 "$bin" generate --mapping "$m" --count 5 --out "$tmp/x" --table t &&
    expect_in "$tmp/stderr" "not both"
check url-out 2 "$bin" generate --mapping "$m" --count 5 --out https://bucket/x && expect_in "$tmp/stderr" "a URL"
check help 0 "$bin" generate --help && expect_in "$tmp/stdout" "--seed"
# a count that cannot be met is refused before anything is written, naming the entity; weekdays
# in the mapping's spelling
cat >"$tmp/week.json" <<'JSON'
{"table":{"name":"t","partitionKey":{"name":"pk"},"sortKey":{"name":"sk"}},
 "entities":[{"name":"Site","keys":{"pk":"S#{siteId}","sk":"INFO"},"fields":[{"name":"siteId"}]},
  {"name":"Hours","keys":{"pk":"S#{siteId}","sk":"{day}"},
   "fields":[{"name":"siteId"},{"name":"day","format":"weekday","spelling":"MON"}]}]}
JSON
check too-many 2 "$bin" generate --mapping "$tmp/week.json" --count Site=2,Hours=15 --out "$tmp/w" &&
    expect_in "$tmp/stderr" "Hours: 15 records do not fit"
[ ! -e "$tmp/w" ] || fail "too-many: output written"
check fits 0 "$bin" generate --mapping "$tmp/week.json" --count Site=2,Hours=14 --out "$tmp/w" --quiet
[ "$(wc -l <"$tmp/w/Hours.ndjson")" = 14 ] || fail "fits: 14 Hours records expected"
[ "$(cut -d'"' -f4 "$tmp/w/Hours.ndjson" | sort | uniq -c | awk '{print $1}' | sort -u)" = 7 ] ||
    fail "fits: each site should have its 7 weekdays"
# days written in the mapping's spelling (MON), as encode writes them: they come back as made
[ "$(cut -d'"' -f8 "$tmp/w/Hours.ndjson" | sort -u | tr '\n' ' ')" = "FRI MON SAT SUN THU TUE WED " ] ||
    fail "fits: days not in the mapping's spelling: $(head -2 "$tmp/w/Hours.ndjson")"
finish
