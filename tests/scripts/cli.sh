#!/usr/bin/env bash
# Command-line behaviour: help, usage errors with hints, exit codes, atomic outputs, stdin.
. "$(dirname "$0")/lib.bash"
shared="$root/../shared/testdata"

check version 0 "$bin" --version && expect_in "$tmp/stdout" "ddbpipe 0."
check help 0 "$bin" --help && expect_in "$tmp/stdout" "export"
# every exit code README lists, and the environment the tool reads
for want in "6    no record matched" "141  the output pipe" "DDBPIPE_NO_GZIP=1" \
    "AWS_CA_BUNDLE"; do
    expect_in "$tmp/stdout" "$want"
done
for c in export convert encode validate; do
    check "help-$c" 0 "$bin" "$c" --help && expect_in "$tmp/stdout" "Usage: ddbpipe $c"
done
check no-command 2 "$bin"
check unknown-command 2 "$bin" exprot && expect_in "$tmp/stderr" "hint:"
check typo-option 2 "$bin" export x --out "$tmp/o" --maping m.json && expect_in "$tmp/stderr" "did you mean --mapping?"
check missing-out 2 "$bin" export x && expect_in "$tmp/stderr" "--out DIR is required"
check convert-needs-to-mapping 2 "$bin" convert x --out "$tmp/o" --mapping "$root/formats/favorites.json" &&
    expect_in "$tmp/stderr" "--to-mapping"
check bad-format 2 "$bin" export x --out "$tmp/o" --format xml && expect_in "$tmp/stderr" "unknown --format"
check bad-number 2 "$bin" export x --out "$tmp/o" --max-rejects -3
check bad-delimiter 2 "$bin" export x --out "$tmp/o" --delimiter ':'
check bad-types 2 "$bin" export x --out "$tmp/o" --types age=INT
check unknown-entity 2 "$bin" encode x.csv --out "$tmp/o" --mapping "$root/formats/favorites.json" --entity Nope
# --shard is parsed strictly: sscanf's %u had wrapped 4294967297/4294967297 to 1/1 (every file
# read) and -1/2 to share 4294967295; signs, spaces, zero, K > N and a huge N are refused
printf '{"Item":{"pk":{"S":"a"}}}\n' >"$tmp/shard-in.json"
for s in 4294967297/4294967297 -1/2 +1/2 " 1/2" "1/ 2" 0/2 3/2 1/0 0/0 1/100001 \
    1/99999999999999999999 1 1/ /2 1/2x 1/2/3 ""; do
    check "bad-shard-$s" 2 "$bin" export "$tmp/shard-in.json" --out "$tmp/shard-o" --shard "$s" &&
        expect_in "$tmp/stderr" "bad --shard \"$s\""
done
check shard-ok 0 "$bin" export "$tmp/shard-in.json" --out "$tmp/shard-o" --shard 1/100000

# the run's own files are never its input or mapping, nor each other: a mistyped --state naming
# the input had overwritten it before it was read (exit 0), --rejects and --unmatched removed or
# overwrote it, --summary replaced it; each is refused, the file left as it was
printf '{"Item":{"pk":{"S":"a"},"sk":{"S":"1"}}}\n' >"$tmp/own-in.json"
cp "$root/formats/favorites.json" "$tmp/own-map.json"
ln -sf own-in.json "$tmp/own-link.json"
before=$(md5sum <"$tmp/own-in.json")
for flag in --state --rejects --unmatched --summary; do
    check "own-input$flag" 2 "$bin" export "$tmp/own-in.json" --out "$tmp/own-o" "$flag" "$tmp/own-in.json" &&
        expect_in "$tmp/stderr" "$flag $tmp/own-in.json is the input"
    # the same file under another name
    check "own-link$flag" 2 "$bin" export "$tmp/own-in.json" --out "$tmp/own-o" "$flag" "$tmp/own-link.json"
    check "own-mapping$flag" 2 "$bin" export "$tmp/own-in.json" --mapping "$tmp/own-map.json" \
        --out "$tmp/own-o" "$flag" "$tmp/own-map.json" && expect_in "$tmp/stderr" "is the mapping"
done
[ "$(md5sum <"$tmp/own-in.json")" = "$before" ] || fail "own files: the input was changed"
cmp -s "$tmp/own-map.json" "$root/formats/favorites.json" || fail "own files: the mapping was changed"
# inside an input folder: the next run would read it (or, in an Export folder, it would replace a
# manifest)
mkdir -p "$tmp/own-dir"
cp "$tmp/own-in.json" "$tmp/own-dir/a.json"
check own-in-folder 2 "$bin" export "$tmp/own-dir" --out "$tmp/own-o" --summary "$tmp/own-dir/s.json" &&
    expect_in "$tmp/stderr" "is inside the input folder"
[ ! -e "$tmp/own-dir/s.json" ] || fail "own files: a summary was written into the input folder"
check own-twice 2 "$bin" export "$tmp/own-in.json" --out "$tmp/own-o" --rejects "$tmp/own-r" \
    --summary "$tmp/own-r" && expect_in "$tmp/stderr" "--rejects and --summary name the same file"
[ ! -e "$tmp/own-o" ] || fail "own files: an output was made"
# a device or FIFO (/dev/null for the files not wanted) is written into, never renamed over or
# removed: run as root, --summary /dev/null had put a regular file in /dev/null's place and a
# clean run's --rejects /dev/null had removed it. FIFOs here, so that a failure cannot break the
# machine's /dev/null
mkfifo "$tmp/sum.fifo" "$tmp/rej.fifo"
timeout 20 cat "$tmp/sum.fifo" >"$tmp/sum.got" &
reader=$!
check own-fifo 0 "$bin" export "$tmp/own-in.json" --out "$tmp/own-fifo" --summary "$tmp/sum.fifo" \
    --rejects "$tmp/rej.fifo"
wait "$reader"
[ -p "$tmp/sum.fifo" ] || fail "own-fifo: the summary's FIFO was replaced"
[ -p "$tmp/rej.fifo" ] || fail "own-fifo: the rejects' FIFO was removed"
grep -q '"command":"export"' "$tmp/sum.got" || fail "own-fifo: the summary did not come through the FIFO"
check own-fifo-state 2 "$bin" export "$tmp/own-in.json" --out "$tmp/own-fifo2" --state "$tmp/rej.fifo" &&
    expect_in "$tmp/stderr" "is not a regular file"

# the wrong mapping (favorites' for the real export's table): every record refused or unmatched,
# and the summary asks whether it is the table's mapping; without --max-rejects it does not claim
# a limit of 0 was passed
if [ -d "$shared/aws-export" ]; then
    check wrong-mapping 1 "$bin" export "$shared/aws-export/01716791487000-6ddcf8cf" \
        --mapping "$root/formats/favorites.json" --out "$tmp/wrong-map" &&
        expect_in "$tmp/stderr" "not one of the 15 records was written: is it the mapping of this table?" &&
        expect_in "$tmp/stderr" "without --max-rejects, any reject fails the run"
    grep -q "more than --max-rejects 0" "$tmp/stderr" && fail "wrong-mapping: a limit nobody gave"
fi

# one Latin-1 byte in a .csv file: the file is read as CSV and that row rejected with its line and
# reason (before, the whole file was refused as of no known format)
printf 'id,name\n1,a\n2,caf\xe9\n3,c\n' >"$tmp/latin1.csv"
check latin1-csv 1 "$bin" validate "$tmp/latin1.csv" &&
    expect_in "$tmp/stderr" "latin1.csv:3: attribute 'name': string is not valid UTF-8" &&
    expect_in "$tmp/stderr" "3 read, 2 valid, 1 rejected"

# a run stopped by --max-rejects discards its outputs but keeps the rejects and unmatched files;
# the summary counts what those files hold (the unmatched ones had been counted as not done)
check stopped-counts 1 "$bin" export "$root/samples/favorites/export" --mapping "$root/formats/favorites.json" \
    --out "$tmp/stopped" --max-rejects 3 --summary "$tmp/stopped.json"
[ "$(json_number "$tmp/stopped.json" unmatched)" = "$(wc -l <"$tmp/stopped/_ddbpipe/unmatched.ndjson")" ] ||
    fail "stopped-counts: unmatched $(json_number "$tmp/stopped.json" unmatched), the file holds $(wc -l <"$tmp/stopped/_ddbpipe/unmatched.ndjson")"
[ "$(wc -l <"$tmp/stopped/_ddbpipe/unmatched.ndjson")" -gt 0 ] || fail "stopped-counts: no unmatched item kept"

# a deletes file's items are keys to delete with a mapping too, on the default two threads as on
# one (the helper thread had decoded them as puts: required fields missing, rejected)
mkdir -p "$tmp/dels"
dump=$(find "$root/samples/favorites/export" -name '*.json.gz' | head -1)
gzip -dc "$dump" | head -5 >"$tmp/dels/items.json"
gzip -dc "$dump" | head -3 | sed -E 's/^\{"Item":\{.*("pk":\{"S":"[^"]*"\}).*("sk":\{"S":"[^"]*"\}).*$/{"Item":{\1,\2}}/' \
    >"$tmp/dels/deletes.json"
[ "$(grep -c '^{"Item":{"pk":{"S":"[^"]*"},"sk":{"S":"[^"]*"}}}$' "$tmp/dels/deletes.json")" = 3 ] ||
    fail "dels: the keys were not cut out: $(head -1 "$tmp/dels/deletes.json")"
for t in 1 2; do
    check "dels-export-$t" 0 "$bin" export "$tmp/dels" --mapping "$root/formats/favorites.json" \
        --out "$tmp/dels-e$t" --threads "$t"
    [ "$(cat "$tmp"/dels-e$t/*.deletes.ndjson 2>/dev/null | wc -l)" = 3 ] ||
        fail "dels-export-$t: 3 deletes expected, got $(cat "$tmp"/dels-e$t/*.deletes.ndjson 2>/dev/null | wc -l)"
    check "dels-convert-$t" 0 "$bin" convert "$tmp/dels" --mapping "$root/formats/favorites.json" \
        --to-mapping "$root/formats/favorites-v2.json" --out "$tmp/dels-c$t" --threads "$t"
    [ "$(cat "$tmp"/dels-c$t/*.deletes.json 2>/dev/null | wc -l)" = 3 ] || fail "dels-convert-$t: 3 deletes expected"
done
diff -r -x _ddbpipe "$tmp/dels-e1" "$tmp/dels-e2" >/dev/null || fail "dels: one thread and two wrote different files"

# a line over --max-line is rejected with its place said once (it was "f:1: f:1: line longer ...")
printf '{"Item":{"pk":{"S":"aaaaaaaaaaaaaaaaaaaaaa"}}}\n' >"$tmp/long.json"
check max-line 1 "$bin" export "$tmp/long.json" --out "$tmp/max-line" --max-line 10 &&
    expect_in "$tmp/stderr" "long.json:1: line longer than the limit of 10 bytes"
grep -q "long.json:1: $tmp/long.json:1:\|long.json:1: long.json:1:" "$tmp/stderr" && fail "max-line: the place said twice"
# standard input under --state: refused, without the hint about --resume
check stdin-state 2 "$bin" export - --out "$tmp/stdin-state" --state "$tmp/stdin.state" </dev/null &&
    expect_in "$tmp/stderr" "cannot be resumed"
grep -q "add --resume" "$tmp/stderr" && fail "stdin-state: a hint about --resume"

# a URL where a local path belongs is refused before anything is written (no ./s3:/bucket/...);
# s3:// is a place ddbpipe writes to, but for the state (kept on the local disk with its spool)
printf '{"Item":{"pk":{"S":"x"}}}\n' >"$tmp/url-in.json"
mkdir -p "$tmp/cwd"
for opt in out rejects unmatched summary state; do
    urls="HTTPS://host/x file:///tmp/x"
    [ "$opt" = state ] && urls="s3://bucket/prefix $urls"
    for url in $urls; do
        args=(export "$tmp/url-in.json" --out "$tmp/o-url")
        [ "$opt" = out ] && args=(export "$tmp/url-in.json")
        check "url-$opt-$url" 2 sh -c 'cd "$1" && shift && exec "$@"' - "$tmp/cwd" "$bin" "${args[@]}" \
            "--$opt" "$url" && expect_in "$tmp/stderr" "--$opt $url: a URL"
    done
done
# accepted: the run goes to S3 (here an endpoint that refuses connections), never to a local s3: folder;
# the prefix is looked at (its manifest) before anything is read or written
s3env=(env AWS_EC2_METADATA_DISABLED=true AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=y
    AWS_REGION=us-east-1 AWS_ENDPOINT_URL_S3=http://127.0.0.1:9)
printf '{"Item":{"pk":{"S":"x"}}}\nnot json\n' >"$tmp/url-bad.json"
check url-out-s3 5 sh -c 'cd "$1" && shift && exec "$@"' - "$tmp/cwd" "${s3env[@]}" "$bin" export \
    "$tmp/url-in.json" --out s3://bucket/prefix --max-attempts 1 &&
    expect_in "$tmp/stderr" "s3://bucket/prefix/_ddbpipe/manifest.json: GET" &&
    expect_in "$tmp/stderr" "the bucket must exist" && expect_in "$tmp/stderr" "AWS_ENDPOINT_URL_S3"
# no region: the hint says where a region is set (it spoke of credentials)
check no-region 2 env -i HOME="$tmp" PATH="$PATH" AWS_EC2_METADATA_DISABLED=true AWS_ACCESS_KEY_ID=x \
    AWS_SECRET_ACCESS_KEY=y "$bin" describe --table t &&
    expect_in "$tmp/stderr" "hint: --region us-east-1, or AWS_REGION=us-east-1, or region = us-east-1"
grep -q "AWS_SECRET_ACCESS_KEY" "$tmp/stderr" && fail "no-region: the hint speaks of credentials"
check url-rejects-s3 4 sh -c 'cd "$1" && shift && exec "$@"' - "$tmp/cwd" "${s3env[@]}" "$bin" export \
    "$tmp/url-bad.json" --out "$tmp/o-url3" --rejects s3://bucket/r.ndjson --max-attempts 1 &&
    expect_in "$tmp/stderr" "s3://bucket/r.ndjson"
check url-summary-s3 4 sh -c 'cd "$1" && shift && exec "$@"' - "$tmp/cwd" "${s3env[@]}" "$bin" export \
    "$tmp/url-in.json" --out "$tmp/o-url4" --summary s3://bucket/s.json --max-attempts 1 &&
    expect_in "$tmp/stderr" "cannot write the summary: s3://bucket/s.json"
check url-unmatched-s3 0 sh -c 'cd "$1" && shift && exec "$@"' - "$tmp/cwd" "${s3env[@]}" "$bin" \
    export "$tmp/url-in.json" --out "$tmp/o-url5" --unmatched s3://bucket/u.ndjson --max-attempts 1
[ -z "$(ls -A "$tmp/cwd")" ] || fail "a URL became a local path: $(ls -A "$tmp/cwd")"
[ ! -e "$tmp/o-url" ] || fail "output written despite a refused URL"
check url-like-local-path 0 "$bin" export "$tmp/url-in.json" --out "$tmp/o-url2/a:b"

# a damaged state file: a usage error naming the member, never a crash
check state-start 0 "$bin" export "$tmp/url-in.json" --out "$tmp/o-st" --state "$tmp/st.json"
sed -e 's/"complete":true/"complete":false/' -e 's/"changes":\[[0-9,]*\]/"changes":[{},{},{},{}]/' \
    "$tmp/st.json" >"$tmp/st2.json"
check state-damaged 2 "$bin" export "$tmp/url-in.json" --out "$tmp/o-st" --state "$tmp/st2.json" --resume &&
    expect_in "$tmp/stderr" '"counts.changes[0]" must be a non-negative integer'

# an input that does not exist: exit 3, nothing committed
check missing-input 3 "$bin" export "$tmp/nope.json" --out "$tmp/o1"
expect_in "$tmp/stderr" "nope.json"
[ -z "$(ls -A "$tmp/o1" 2>/dev/null)" ] || fail "outputs written despite input error"

# a truncated gzip input: the good records before the cut are read, the run fails, no output
printf '{"Item":{"pk":{"S":"a"}}}\n%.0s' $(seq 1 2000) | gzip -c >"$tmp/full.json.gz"
head -c $(($(stat -c %s "$tmp/full.json.gz") - 20)) "$tmp/full.json.gz" >"$tmp/cut.json.gz"
check truncated-gzip 3 "$bin" export "$tmp/cut.json.gz" --out "$tmp/o2"
expect_in "$tmp/stderr" "unexpected end of gzip data"
[ ! -e "$tmp/o2/items.ndjson" ] || fail "partial output committed"
ls -A "$tmp/o2" | grep -q tmp && fail "temporary file left behind"

# stdin, and a second input after it
printf '{"Item":{"pk":{"S":"x"}}}\n' >"$tmp/one.json"
check stdin 0 sh -c "printf '{\"Item\":{\"pk\":{\"S\":\"y\"}}}\n' | '$bin' export - '$tmp/one.json' --out '$tmp/o3'"
[ "$(wc -l <"$tmp/o3/items.ndjson")" = 2 ] || fail "stdin + file should give 2 lines"

# rejects: exit 1 unless --max-rejects allows them; --rejects elsewhere; --summary JSON
printf '{"Item":{"pk":{"S":"a"}}}\nnot json\n' >"$tmp/bad.json"
check rejects-exit 1 "$bin" export "$tmp/bad.json" --out "$tmp/o4"
expect_in "$tmp/o4/_ddbpipe/rejects.ndjson" '"line":2'
check rejects-allowed 0 "$bin" export "$tmp/bad.json" --out "$tmp/o5" --max-rejects 1 \
    --rejects "$tmp/r.ndjson" --summary "$tmp/s.json"
expect_in "$tmp/r.ndjson" '"reason":"column 1: expected'
expect_in "$tmp/s.json" '"total":{"name":"total","read":2,"written":1,"deleted":0,"rejected":1,"unmatched":0,"existing":0,"not_done":0}'
expect_in "$tmp/s.json" '"exit_code":0'

# the real AWS export: all 133199 items, checksums verified; the re-indented summary manifest warns
if [ -d "$shared/aws-export" ]; then
    check aws-full 0 "$bin" export "$shared/aws-export/01716790307109-5f9d6aaa" --out "$tmp/o6" \
        --summary "$tmp/s6.json"
    expect_in "$tmp/s6.json" '"read":133199,"written":133199,"deleted":0,"rejected":0,"unmatched":0'
    expect_in "$tmp/stderr" "manifest-summary"
    [ "$(wc -l <"$tmp/o6/items.ndjson")" = 133199 ] || fail "133199 lines expected"
    check aws-incremental 0 "$bin" export "$shared/aws-export/01716791487000-6ddcf8cf" --out "$tmp/o7" \
        --summary "$tmp/s7.json"
    expect_in "$tmp/s7.json" '"changes":{"inserted":1,"modified":8,"removed":6}'
    expect_in "$tmp/stderr" "changes: 1 inserted, 8 modified, 6 removed"
    [ "$(wc -l <"$tmp/o7/deletes.ndjson")" = 6 ] || fail "6 deletes expected"
    # a corrupted copy fails verification, names the file, and commits nothing
    cp -r "$shared/aws-export" "$tmp/copy"
    chmod -R u+w "$tmp/copy"
    f=$(ls "$tmp"/copy/01716790307109-5f9d6aaa/data/*.gz | head -1)
    printf 'x' | dd of="$f" bs=1 seek=5000 conv=notrunc 2>/dev/null
    check aws-corrupt 3 "$bin" export "$tmp/copy/01716790307109-5f9d6aaa" --out "$tmp/o8"
    expect_in "$tmp/stderr" "$(basename "$f")"
    [ ! -e "$tmp/o8/items.ndjson" ] || fail "output committed despite checksum error"
    check aws-corrupt-noverify 3 "$bin" export "$tmp/copy/01716790307109-5f9d6aaa" --out "$tmp/o9" --no-verify
fi

# what convert wrote reads back as a folder: its per-entity files, not its _ files
check convert-folder 0 "$bin" convert "$root/samples/favorites/export" --mapping "$root/formats/favorites.json" \
    --to-mapping "$root/formats/favorites-v2.json" --out "$tmp/cv" --max-rejects 100
check validate-folder 0 "$bin" validate "$tmp/cv" --mapping "$root/formats/favorites-v2.json"
expect_in "$tmp/stderr" "309 read, 309 valid, 0 rejected, 0 unmatched"

# the messages that help: an endpoint without a scheme, an unreachable one, the AWS CLI's spellings
check no-scheme 2 env AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=y AWS_REGION=us-east-1 \
    "$bin" describe --table t --endpoint-url 127.0.0.1:8211
expect_in "$tmp/stderr" "must start with http:// or https://"
check unreachable 5 env AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=y AWS_REGION=us-east-1 \
    "$bin" describe --table t --endpoint-url http://127.0.0.1:9 --max-attempts 2
expect_in "$tmp/stderr" "cannot reach http://127.0.0.1:9"
check aws-spelling 2 "$bin" describe --table-name t
expect_in "$tmp/stderr" "did you mean --table?"
check out-dash 2 "$bin" export "$root/samples/favorites/seed/Tag.csv" --out -
expect_in "$tmp/stderr" "standard output cannot hold"

# -- a reused --out: the previous run's files are replaced, stale ones removed; files ddbpipe
#    did not write are refused unless --overwrite, and then left alone --------------------------
fav_export="$root/samples/favorites/export"
fav_map="$root/formats/favorites.json"
fail_if() { # condition text, message
    if eval "$1"; then fail "$2"; fi
}
check reuse-1 1 "$bin" export "$fav_export" --mapping "$fav_map" --format csv --out "$tmp/re" --quiet
fail_if '[ ! -f "$tmp/re/Tag.csv" ] || [ ! -f "$tmp/re/_ddbpipe/rejects.ndjson" ]' "reuse-1: files missing"
fail_if '[ ! -f "$tmp/re/_ddbpipe/summary.json" ] || [ ! -f "$tmp/re/_ddbpipe/manifest.json" ]' \
    "reuse-1: no summary or manifest in _ddbpipe/"
check reuse-2 1 "$bin" export "$fav_export" --mapping "$fav_map" --format ndjson --out "$tmp/re" --quiet
expect_in "$tmp/stderr" "removed 3 files of the previous run"
fail_if '[ -e "$tmp/re/Tag.csv" ] || [ ! -f "$tmp/re/Tag.ndjson" ]' "reuse-2: the CSV files of the first run stayed"
# a clean run (the seed files hold no bad record) leaves no rejects file of an earlier run
check reuse-clean 0 "$bin" encode "$root/samples/favorites/seed/Tag.csv" --entity Tag \
    --mapping "$fav_map" --out "$tmp/re" --quiet
fail_if '[ -e "$tmp/re/_ddbpipe/rejects.ndjson" ] || [ -e "$tmp/re/_ddbpipe/unmatched.ndjson" ]' \
    "reuse-clean: the previous run's rejects or unmatched file stayed"
fail_if '[ -e "$tmp/re/FavoriteData.ndjson" ] || [ ! -f "$tmp/re/Tag.json" ]' \
    "reuse-clean: an entity file of the previous run stayed"
fail_if '[ -e "$tmp/re/_ddbpipe/schema" ]' \
    "reuse-clean: the previous export's column types stayed (they describe files now removed)"
echo mine >"$tmp/re/notes.txt"
check foreign 2 "$bin" encode "$root/samples/favorites/seed/Tag.csv" --entity Tag \
    --mapping "$fav_map" --out "$tmp/re" --quiet
expect_in "$tmp/stderr" "holds 1 file ddbpipe did not write (notes.txt)"
expect_in "$tmp/stderr" "--overwrite"
check overwrite 0 "$bin" encode "$root/samples/favorites/seed/Tag.csv" --entity Tag \
    --mapping "$fav_map" --out "$tmp/re" --overwrite
expect_in "$tmp/stderr" "beside 1 file ddbpipe did not write"
fail_if '[ "$(cat "$tmp/re/notes.txt")" != mine ]' "overwrite: a file ddbpipe did not write was touched"

# a CSV whose file name is no entity: said once, with the entities and --entity (it was
# "missing partition key" on every row); validate writes no files and does not say it
cp "$root/samples/favorites/seed/Tag.csv" "$tmp/Tag2.csv"
check csv-no-entity 3 "$bin" validate "$tmp/Tag2.csv" --mapping "$root/formats/favorites.json"
expect_in "$tmp/stderr" '"Tag2" is no entity of'
expect_in "$tmp/stderr" "(Tag, FavoriteData, FavoriteDataTag)"
expect_in "$tmp/stderr" "--entity NAME"
[ "$(grep -c "Tag2.csv" "$tmp/stderr")" = 1 ] || fail "csv-no-entity: said $(grep -c "Tag2.csv" "$tmp/stderr") times"
grep -q "missing partition key" "$tmp/stderr" && fail "csv-no-entity: a row's error"
grep -q "file outputs were NOT written" "$tmp/stderr" && fail "csv-no-entity: validate spoke of file outputs"

# CSV without a mapping: a column per attribute name; items each with a name of its own made a
# file of empty cells a thousand times the input: past 1000 columns the run stops, pointing to
# NDJSON; --max-columns allows more
awk 'BEGIN { for (i = 1; i <= 1000; i++) printf "{\"Item\":{\"pk\":{\"S\":\"k%d\"},\"a%d\":{\"S\":\"x\"}}}\n", i, i }' \
    >"$tmp/names.json"
check csv-columns 4 "$bin" export "$tmp/names.json" --format csv --out "$tmp/names-csv" &&
    expect_in "$tmp/stderr" "more than 1000 distinct attribute names" &&
    expect_in "$tmp/stderr" "--format ndjson"
[ ! -e "$tmp/names-csv/items.csv" ] || fail "csv-columns: the CSV was written"
check csv-columns-allowed 0 "$bin" export "$tmp/names.json" --format csv --out "$tmp/names-csv2" \
    --max-columns 1001 --quiet
[ "$(head -1 "$tmp/names-csv2/items.csv" | tr "," "\n" | wc -l)" = 1002 ] ||
    fail "csv-columns-allowed: the header is not pk, a1...a1000 and _extra"
check csv-columns-ndjson 0 "$bin" export "$tmp/names.json" --format ndjson --out "$tmp/names-nd" --quiet

# -- a closed pipe: only a closed data output (--out -) stops a run. Fd 4 is a pipe whose reader
# is gone (a FIFO opened both ways, then its reading end closed), as after "2>&1 | head -3":
# messages there were taken for cut data: the run stopped half way with exit 141 (or, before the
# signal handler was set, died with no summary)
mkfifo "$tmp/gone.fifo"
exec 3<>"$tmp/gone.fifo" 4>"$tmp/gone.fifo" 3<&-
"$bin" generate --mapping "$fav_map" --count 3000 --seed 3 --format ndjson --out "$tmp/gone" \
    --summary "$tmp/gone.json" >&4 2>&4
got=$?
[ "$got" = 0 ] || fail "closed-stderr: exit $got, expected 0 (the messages' pipe carries no data)"
grep -q '"complete":true' "$tmp/gone.json" 2>/dev/null || fail "closed-stderr: the summary does not say complete"
[ "$(json_number "$tmp/gone.json" written)" = "$(cat "$tmp"/gone/*.ndjson | wc -l)" ] ||
    fail "closed-stderr: the summary's written is not the files' records"
[ "$(cat "$tmp"/gone/*.ndjson | wc -l)" -ge 3000 ] || fail "closed-stderr: files written in part"
# the data itself on the closed pipe: stopped, 141, the summary says so
"$bin" generate --mapping "$fav_map" --count 3000 --seed 3 --format ddb-json --out - \
    --summary "$tmp/gone-data.json" >&4 2>/dev/null
got=$?
[ "$got" = 141 ] || fail "closed-data: exit $got, expected 141"
grep -q '"complete":true' "$tmp/gone-data.json" 2>/dev/null && fail "closed-data: the summary says complete"
exec 4>&-

finish
