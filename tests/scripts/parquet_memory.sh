#!/usr/bin/env bash
# The Parquet writer's memory is bounded: the row groups of all of an output's files share one
# budget (write/parquet.h, PQ_BUDGET_BYTES), so an export to Parquet peaks near the same export
# to NDJSON plus that budget, whatever the number of entities and the input's size. Here the
# budget is made small (DDBPIPE_PARQUET_BUDGET, for tests) so that a few megabytes of input
# show it: before the budget every entity's file held its row group of up to 32 MB, and this
# export peaked 30 MB above NDJSON's. The files written under the small budget, of many row
# groups and pages, read back as exactly the records NDJSON gives (DuckDB, hyparquet) and as the
# items they came from (ddbpipe).
. "$(dirname "$0")/lib.bash"
gen="$tools/ddbpipe-gen"
M="$root/formats/favorites.json"
cd "$tmp" || exit 1
"$gen" bench --mapping "$M" --items 40000 --rich --out rich.json.gz >/dev/null || fail "gen --rich"

peak() { # NAME ARGS...: the export's peak RSS in KB, into $tmp/NAME.rss
    local name=$1
    shift
    /usr/bin/time -f %M -o "$name.rss" "$bin" export rich.json.gz --mapping "$M" --threads 2 \
        --overwrite --quiet "$@" >"$name.out" 2>"$name.err" || fail "$name: $(tail -3 "$name.err")"
}
peak ndjson --format ndjson --out nd
DDBPIPE_PARQUET_BUDGET=2000000 peak parquet --format parquet --out pq

# the budget's bound, measured: the sanitizers' shadow memory and quarantine would swamp it
if grep -qaE '__asan_init|__tsan_init' "$bin"; then
    echo "sanitizer build: peak RSS not compared"
else
    nd=$(tail -1 ndjson.rss) pq=$(tail -1 parquet.rss)
    echo "peak RSS: NDJSON $nd KB, Parquet $pq KB"
    # the 2 MB budget, a row group of at most that encoded ahead on a thread of its own, and
    # that thread's page being compressed, dictionary and codec context (measured: 8.3 MB apart;
    # 5.2 before row groups were encoded ahead)
    [ "$pq" -le $((nd + 10 * 1024)) ] ||
        fail "Parquet peaked at $((pq / 1024)) MB, NDJSON at $((nd / 1024)) MB: more than 10 MB apart"
fi

# every file was written in several row groups, each column in pages
node "$root/tests/scripts/duck-rows.js" "SELECT file_name f, count(DISTINCT row_group_id) g
    FROM parquet_metadata('pq/*.parquet') GROUP BY f ORDER BY f" >groups.duck 2>&1 ||
    fail "DuckDB: $(cat groups.duck)"
[ "$(grep -c '"g":"[2-9]"\|"g":"[1-9][0-9]' groups.duck)" = 3 ] ||
    fail "not every file has several row groups: $(cat groups.duck)"
node "$root/tests/scripts/parquet-check.mjs" nd pq "$M" >check.out 2>&1 ||
    { fail "Parquet under a small budget differs from NDJSON"; cat check.out >&2; }
check encode 0 "$bin" encode pq/*.parquet --mapping "$M" --out back --quiet
gzip -dc rich.json.gz >rich.json
node "$root/tests/seeds/same-items.js" rich.json -- back/*.json >same.out 2>&1 ||
    { fail "the items read back differ"; tail -5 same.out >&2; }

exit $((failures > 0))
