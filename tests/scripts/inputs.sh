#!/usr/bin/env bash
# Real-world inputs from the command line: CSV that ddbpipe writes reads back to the same items
# (with a mapping and without), what is neither JSON nor clearly CSV is refused, header-less and
# uneven CSV, typed column names checked against a mapping by their field part, empty inputs leave
# the same files either way, no progress line before anything is counted, and a reader that goes
# away (| head) stops the run cleanly with exit 141.
set -u
bin=$1
root=${DDB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
check() { # name, expected exit, command...
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    local got=$?
    if [ "$got" != "$want" ]; then
        fail "$name: exit $got, expected $want"
        sed 's/^/    /' "$tmp/stderr" >&2
        return 1
    fi
    return 0
}
expect_in() { # file, text
    grep -qF -- "$2" "$1" || {
        fail "$1 lacks: $2"
        sed 's/^/    /' "$1" >&2
    }
}
# The items of DynamoDB JSON files, canonical (attributes sorted), one per line, sorted.
canon() { node "$root/tests/golden/canon-items.js" "$@"; }
same_items() { # name, a.json, b.json
    canon "$2" >"$tmp/a.canon"
    canon "$3" >"$tmp/b.canon"
    cmp -s "$tmp/a.canon" "$tmp/b.canon" || {
        fail "$1: the items differ"
        diff "$tmp/a.canon" "$tmp/b.canon" | head -5 >&2
    }
}

export_dir="$root/samples/favorites/export"
M="$root/formats/favorites.json"

# -- CSV without a mapping reads back to the same items (three entities in one table) ----------
check items-json 1 "$bin" export "$export_dir" --out "$tmp/j" --format ddb-json
check items-csv 1 "$bin" export "$export_dir" --out "$tmp/c" --format csv
head -1 "$tmp/c/items.csv" | grep -q 'createTime:N' || fail "the CSV header does not type createTime"
check csv-back 0 "$bin" export "$tmp/c/items.csv" --out "$tmp/cj" --format ddb-json
same_items "csv without a mapping" "$tmp/j/items.json" "$tmp/cj/items.json"
check csv-import-dry 0 "$bin" validate "$tmp/c/items.csv"
# ... and with a mapping: records -> CSV -> encode gives the items back
check rec-csv 1 "$bin" export "$export_dir" --mapping "$M" --out "$tmp/r" --format csv
check rec-encode 0 "$bin" encode "$tmp"/r/Tag.csv "$tmp"/r/FavoriteData.csv "$tmp"/r/FavoriteDataTag.csv \
    --mapping "$M" --out "$tmp/re"
check rec-json 1 "$bin" export "$export_dir" --mapping "$M" --out "$tmp/rj" --format ddb-json
check rec-json-encode 0 "$bin" encode "$tmp"/rj/Tag.json "$tmp"/rj/FavoriteData.json "$tmp"/rj/FavoriteDataTag.json \
    --mapping "$M" --out "$tmp/rje"
same_items "records via CSV vs via DynamoDB JSON" "$tmp/rje/Tag.json" "$tmp/re/Tag.json"
same_items "records via CSV vs via DynamoDB JSON" "$tmp/rje/FavoriteData.json" "$tmp/re/FavoriteData.json"
# NDJSON without a mapping, typed: binary and sets survive
printf '{"Item":{"pk":{"S":"a"},"b":{"B":"AAE="},"s":{"NS":["1","2.5"]}}}\n' >"$tmp/bs.json"
check typed-ndjson 0 "$bin" export "$tmp/bs.json" --out "$tmp/t" --typed
check typed-back 0 "$bin" export "$tmp/t/items.ndjson" --out "$tmp/tb" --format ddb-json
same_items "typed NDJSON" "$tmp/bs.json" "$tmp/tb/items.json"

# -- never guessed -------------------------------------------------------------------------------
printf 'dear diary\ntoday I exported a table\n' >"$tmp/notes.txt"
check not-csv 3 "$bin" export "$tmp/notes.txt" --out "$tmp/n"
expect_in "$tmp/stderr" "cannot tell the format of its content"
[ ! -e "$tmp/n/items.ndjson" ] || fail "an unreadable input left an output"
check not-csv-forced 0 "$bin" export "$tmp/notes.txt" --input-format csv --out "$tmp/n2"
# a model in S3 is read by runs (import s3://.../model.json), but drafted from a local copy only
check draft-s3 2 "$bin" mapping-from-workbench s3://bucket/model.json
expect_in "$tmp/stderr" "the model must be a local file"

# -- CSV without a header, uneven rows -------------------------------------------------------------
printf '1,abc,2.50\n2,"x,y",3\n3,z\n4,w,5,extra\n' >"$tmp/rows.txt"
check columns 1 "$bin" export "$tmp/rows.txt" --columns id:N,name,price:N --out "$tmp/h" --format ddb-json
expect_in "$tmp/stderr" "rows.txt:3: row has 2 fields, the columns given are 3"
expect_in "$tmp/h/items.json" '{"Item":{"id":{"N":"2"},"name":{"S":"x,y"},"price":{"N":"3"}}}'
check uneven 0 "$bin" export "$tmp/rows.txt" --columns id:N,name,price:N --allow-short-rows \
    --allow-long-rows --out "$tmp/h2" --format ddb-json
expect_in "$tmp/h2/items.json" '{"Item":{"id":{"N":"3"},"name":{"S":"z"}}}'
expect_in "$tmp/h2/items.json" '"_col4":{"S":"extra"}'

# -- typed columns with a mapping: a column's field part (createTime of createTime:N) is what is
# checked against the entity's fields
mkdir -p "$tmp/tc"
printf 'userId,tagId:S,tagName,createTime:N,lastAccessTime\nu1,t1,x,5,7\n' >"$tmp/tc/Tag.csv"
check typed-header 0 "$bin" encode "$tmp/tc/Tag.csv" --mapping "$root/formats/favorites.json" \
    --out "$tmp/tc1"
expect_in "$tmp/tc1/Tag.json" '"createTime":{"N":"5"}'
printf 'userId,tagId:S,tagNam:S,createTime:N\nu1,t1,x,5\n' >"$tmp/tc/Tag.csv"
check typed-header-misspelt 3 "$bin" encode "$tmp/tc/Tag.csv" --mapping "$root/formats/favorites.json" \
    --out "$tmp/tc2"
expect_in "$tmp/stderr" "column 'tagNam' (did you mean 'tagName'?) is not a field of Tag"

# -- empty inputs: the same files either way, and the summary says so ------------------------------
: >"$tmp/empty.json"
check empty-plain 0 "$bin" export "$tmp/empty.json" --out "$tmp/e1"
[ -f "$tmp/e1/items.ndjson" ] && [ ! -s "$tmp/e1/items.ndjson" ] || fail "empty input: no empty items.ndjson"
expect_in "$tmp/stderr" "the inputs held no records"
check empty-mapping 0 "$bin" export "$tmp/empty.json" --mapping "$M" --out "$tmp/e2" --format csv
[ "$(cat "$tmp/e2/Tag.csv")" = "userId,tagId,tagName,createTime,lastAccessTime,_extra" ] ||
    fail "empty input with a mapping: Tag.csv is not header-only"
expect_in "$tmp/stderr" "the inputs held no records"

# -- progress: nothing before something is counted ---------------------------------------------------
check progress 1 "$bin" export "$export_dir" --out "$tmp/p" --progress log
grep -q "progress: read 0 " "$tmp/stderr" && fail "a progress line before anything was counted"

# -- CSV without a mapping, killed mid-run and resumed: the spill is continued, the file identical ---
node -e '
let s = "";
for (let i = 0; i < 300000; i++)
  s += "{\"Item\":{\"pk\":{\"S\":\"k" + i + "\"},\"v\":{\"N\":\"" + i + "\"}" +
       (i % 3 ? "" : ",\"t\":{\"SS\":[\"a\",\"b" + i + "\"]}") + (i % 5 ? "" : ",\"x\":{\"S\":\"x\"}") + "}}\n";
require("fs").writeFileSync(process.argv[1], s);' "$tmp/res.json"
check res-whole 0 "$bin" export "$tmp/res.json" --out "$tmp/rw" --format csv
# The spill of a run that cannot be resumed is deleted unsynced: no writeback is started on it
# (the disk would write what is thrown away, and the deletion wait for it); a resumable run's is
# synced at each checkpoint, and its writeback spread as it is written. Counted with strace, which
# prints each descriptor's path (-y): the spill is about 9 MB, one writeback step of 8 MiB.
if command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; then
    for mode in scratch resumable; do
        rm -rf "$tmp/wb" "$tmp/wb.state"
        strace -f -qq -y -e trace=sync_file_range -o "$tmp/wb.trace" "$bin" export \
            "$tmp/res.json" --out "$tmp/wb" --format csv --quiet \
            $([ $mode = resumable ] && echo --state "$tmp/wb.state") 2>/dev/null
        n=$(grep -c 'sync_file_range([0-9]*<[^>]*\.items\.csv\.spill' "$tmp/wb.trace")
        cmp -s "$tmp/rw/items.csv" "$tmp/wb/items.csv" || fail "$mode: the CSV differs"
        case $mode in
        scratch) [ "$n" = 0 ] || fail "writeback started $n times on a spill that is only deleted" ;;
        resumable) [ "$n" -ge 1 ] || fail "no writeback on a resumable run's spill" ;;
        esac
    done
else
    echo "  (strace cannot trace here: the spill's writeback is not counted)" >&2
fi
killed=0
for attempt in 1 2 3 4 5; do
    rm -rf "$tmp/rk" "$tmp/rk.state"
    "$bin" export "$tmp/res.json" --out "$tmp/rk" --format csv --state "$tmp/rk.state" \
        --checkpoint-interval 0 --quiet 2>/dev/null &
    pid=$!
    for _ in $(seq 1 1000); do
        if grep -q '"pos":[1-9]' "$tmp/rk.state" 2>/dev/null && ! grep -q '"complete":true' "$tmp/rk.state"; then
            kill -9 "$pid" 2>/dev/null && killed=1
            break
        fi
        sleep 0.005
    done
    wait "$pid" 2>/dev/null
    [ "$killed" = 1 ] && break
done
if [ "$killed" = 1 ]; then
    grep -q '.items.csv.spill' "$tmp/rk.state" || fail "the checkpoint does not record the spill"
    check res-resume 0 "$bin" export "$tmp/res.json" --out "$tmp/rk" --format csv --state "$tmp/rk.state" \
        --checkpoint-interval 0 --resume
    cmp -s "$tmp/rw/items.csv" "$tmp/rk/items.csv" || fail "the resumed CSV differs from an uninterrupted one"
    [ "$(ls -A "$tmp/rk" | tr '\n' ' ')" = "_ddbpipe items.csv " ] ||
        fail "the resumed run left: $(ls -A "$tmp/rk")"
    [ -z "$(find "$tmp/rk" -name '*.spill*')" ] || fail "the resumed run left its spill file"
else
    echo "  (the run always finished before it could be killed: resume not exercised)" >&2
fi

# -- the reader of the messages goes away: the files are data, the messages are not: the run goes
# on to the end (it had stopped with exit 141 and no output), its messages lost -----------------------
node -e '
let s = "";
for (let i = 0; i < 300000; i++)
  s += i % 20000 === 1 ? "{\"Item\":{\"pk\":{\"Q\":\"bad\"}}}\n"
                       : "{\"Item\":{\"pk\":{\"S\":\"k" + i + "\"},\"v\":{\"N\":\"" + i + "\"}}}\n";
require("fs").writeFileSync(process.argv[1], s);' "$tmp/big.json"
mkfifo "$tmp/fifo"
("$bin" export "$tmp/big.json" --out "$tmp/pipe" --format csv --max-rejects 100 2>"$tmp/fifo"
    echo $? >"$tmp/pipe.rc") &
exec 3<"$tmp/fifo"
read -r first <&3
exec 3<&-
wait
[ "$(cat "$tmp/pipe.rc")" = 0 ] || fail "broken pipe: exit $(cat "$tmp/pipe.rc"), expected 0"
case "$first" in *"big.json:2:"*) ;; *) fail "broken pipe: first line was: $first" ;; esac
# 300000 lines, one in 20000 bad: 299985 records and the header
[ "$(wc -l <"$tmp/pipe/items.csv" 2>/dev/null)" = 299986 ] ||
    fail "broken pipe: items.csv holds $(wc -l <"$tmp/pipe/items.csv" 2>/dev/null) lines, not 299986"
grep -q '"complete":true' "$tmp/pipe/_ddbpipe/summary.json" 2>/dev/null ||
    fail "broken pipe: the run's summary does not say complete"

# a pipe that pauses is told as a whole input would be: a CSV header and a row cut by the pause
# is CSV (before: told from the header alone, then refused for the cut row), and one line of text
# with a comma is not (before: CSV on a pause, refused without one)
(printf 'pk,sk,n\nKey#1,'; sleep 1; printf 'a,7\n') | "$bin" validate - >"$tmp/cutrow.out" 2>&1 ||
    fail "cut-row: a header and a row cut by a pause were refused: $(tail -2 "$tmp/cutrow.out")"
grep -q "1 read, 1 valid" "$tmp/cutrow.out" || fail "cut-row: $(grep 'validate:' "$tmp/cutrow.out")"
(printf 'hello, world\n'; sleep 1; printf 'plain text\n') | "$bin" validate - >"$tmp/text.out" 2>&1
[ $? = 3 ] && grep -q "cannot tell the format" "$tmp/text.out" ||
    fail "text: two lines of text read as something: $(tail -2 "$tmp/text.out")"

if [ "$failures" -gt 0 ]; then
    echo "inputs.sh: $failures failure(s)" >&2
    exit 1
fi
echo "inputs.sh: ok"
