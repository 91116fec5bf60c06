#!/usr/bin/env bash
# Command-line behaviour: help, usage errors with hints, exit codes, atomic outputs, stdin.
. "$(dirname "$0")/lib.bash"
shared="$root/../shared/testdata"

check version 0 "$bin" --version && expect_in "$tmp/stdout" "ddbpipe 0."
check help 0 "$bin" --help && expect_in "$tmp/stdout" "export"
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

# an input that does not exist: exit 3, nothing committed
check missing-input 3 "$bin" export "$tmp/nope.json" --out "$tmp/o1"
expect_in "$tmp/stderr" "nope.json"
[ -z "$(ls -A "$tmp/o1" 2>/dev/null)" ] || { echo "FAIL: outputs written despite input error" >&2; failures=$((failures + 1)); }

# a truncated gzip input: the good records before the cut are read, the run fails, no output
printf '{"Item":{"pk":{"S":"a"}}}\n%.0s' $(seq 1 2000) | gzip -c >"$tmp/full.json.gz"
head -c $(($(stat -c %s "$tmp/full.json.gz") - 20)) "$tmp/full.json.gz" >"$tmp/cut.json.gz"
check truncated-gzip 3 "$bin" export "$tmp/cut.json.gz" --out "$tmp/o2"
expect_in "$tmp/stderr" "unexpected end of gzip data"
[ ! -e "$tmp/o2/items.ndjson" ] || { echo "FAIL: partial output committed" >&2; failures=$((failures + 1)); }
ls -A "$tmp/o2" | grep -q tmp && { echo "FAIL: temporary file left behind" >&2; failures=$((failures + 1)); }

# stdin, and a second input after it
printf '{"Item":{"pk":{"S":"x"}}}\n' >"$tmp/one.json"
check stdin 0 sh -c "printf '{\"Item\":{\"pk\":{\"S\":\"y\"}}}\n' | '$bin' export - '$tmp/one.json' --out '$tmp/o3'"
[ "$(wc -l <"$tmp/o3/items.ndjson")" = 2 ] || { echo "FAIL: stdin + file should give 2 lines" >&2; failures=$((failures + 1)); }

# rejects: exit 1 unless --max-rejects allows them; --rejects elsewhere; --summary JSON
printf '{"Item":{"pk":{"S":"a"}}}\nnot json\n' >"$tmp/bad.json"
check rejects-exit 1 "$bin" export "$tmp/bad.json" --out "$tmp/o4"
expect_in "$tmp/o4/_rejects.ndjson" '"line":2'
check rejects-allowed 0 "$bin" export "$tmp/bad.json" --out "$tmp/o5" --max-rejects 1 \
    --rejects "$tmp/r.ndjson" --summary "$tmp/s.json"
expect_in "$tmp/r.ndjson" '"reason":"column 1: expected'
expect_in "$tmp/s.json" '"total":{"name":"total","read":2,"written":1,"deleted":0,"rejected":1,"unmatched":0}'
expect_in "$tmp/s.json" '"exit_code":0'

# the real AWS export: all 133199 items, checksums verified; the re-indented summary manifest warns
if [ -d "$shared/aws-export" ]; then
    check aws-full 0 "$bin" export "$shared/aws-export/01716790307109-5f9d6aaa" --out "$tmp/o6" \
        --summary "$tmp/s6.json"
    expect_in "$tmp/s6.json" '"read":133199,"written":133199,"deleted":0,"rejected":0,"unmatched":0'
    expect_in "$tmp/stderr" "manifest-summary"
    [ "$(wc -l <"$tmp/o6/items.ndjson")" = 133199 ] || { echo "FAIL: 133199 lines expected" >&2; failures=$((failures + 1)); }
    check aws-incremental 0 "$bin" export "$shared/aws-export/01716791487000-6ddcf8cf" --out "$tmp/o7" \
        --summary "$tmp/s7.json"
    expect_in "$tmp/s7.json" '"changes":{"inserted":1,"modified":8,"removed":6}'
    expect_in "$tmp/stderr" "changes: 1 inserted, 8 modified, 6 removed"
    [ "$(wc -l <"$tmp/o7/deletes.ndjson")" = 6 ] || { echo "FAIL: 6 deletes expected" >&2; failures=$((failures + 1)); }
    # a corrupted copy fails verification, names the file, and commits nothing
    cp -r "$shared/aws-export" "$tmp/copy"
    chmod -R u+w "$tmp/copy"
    f=$(ls "$tmp"/copy/01716790307109-5f9d6aaa/data/*.gz | head -1)
    printf 'x' | dd of="$f" bs=1 seek=5000 conv=notrunc 2>/dev/null
    check aws-corrupt 3 "$bin" export "$tmp/copy/01716790307109-5f9d6aaa" --out "$tmp/o8"
    expect_in "$tmp/stderr" "$(basename "$f")"
    [ ! -e "$tmp/o8/items.ndjson" ] || { echo "FAIL: output committed despite checksum error" >&2; failures=$((failures + 1)); }
    check aws-corrupt-noverify 3 "$bin" export "$tmp/copy/01716790307109-5f9d6aaa" --out "$tmp/o9" --no-verify
fi

finish
