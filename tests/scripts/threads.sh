#!/usr/bin/env bash
# Computing ahead on N threads (parsing, decoding, formatting each file's lines) changes nothing
# but the time: export (CSV, NDJSON+gzip, DynamoDB JSON, with a mapping and without), validate
# and convert give byte-identical files, rejects, unmatched items, counts and exit codes with
# --threads 1, 2, 4 and by default, on an input whose bad lines, unmatched items and undecodable
# items fall in many different batches, and on every golden case that exports or converts;
# --max-rejects stops on the same record; checkpoints taken while computing ahead leave the same
# outputs, and a run stopped under --state and resumed with other threads finishes them;
# --threads 1 starts no thread.
. "$(dirname "$0")/lib.bash"
gen="$tools/ddbpipe-gen"
M="$root/formats/favorites.json"
M2="$root/formats/favorites-v2.json"
cd "$tmp" || exit 1

# 18000 items: 70 batches of 256, and a gzip input of two read-ahead chunks (1 MiB each)
"$gen" bench --mapping "$M" --items 18000 --out dump.json.gz >/dev/null || fail generator
# every 587th line is not JSON, every 593rd item belongs to no entity, every 599th item has
# an index key that its fields do not give (rejected by decode)
gzip -dc dump.json.gz | awk '
    NR % 587 == 0 { print "not json"; next }
    NR % 593 == 0 { sub(/"pk":\{"S":"[A-Za-z]+#/, "\"pk\":{\"S\":\"Other#") }
    NR % 599 == 0 { sub(/"(lsiTwoSk|gsiOneSk)":\{"S":"/, "&x") }
    { print }' | gzip -1 >input.json.gz
[ "$(gzip -dc input.json.gz | grep -c '^not json$')" -ge 30 ] || fail "the input has too few bad lines"

# --threads 1 is one core: no thread at all, not even one inflating the gzip input ahead; two
# threads start more. Counted with strace where the machine lets it trace, against a run that
# starts none of ours (a small uncompressed input): a sanitizer's runtime may clone on its own.
if command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; then
    gzip -dc input.json.gz | head -100 >small.json
    clones() { # clones NAME ARGS...: the clone calls of ddbpipe ARGS, into NAME.n
        local name=$1
        shift
        strace -f -qq -e trace=clone,clone3 -o "$name.trace" "$bin" "$@" --mapping "$M" \
            --out "$name.out" --format csv --quiet 2>/dev/null
        grep -c 'clone' "$name.trace" >"$name.n"
    }
    clones base export small.json --threads 1
    clones t1 export input.json.gz --threads 1
    clones t2 export input.json.gz --threads 2
    [ "$(cat t1.n)" = "$(cat base.n)" ] ||
        fail "--threads 1 on a gzip input cloned $(cat t1.n) times, a plain run $(cat base.n)"
    [ "$(cat t2.n)" -ge $(($(cat base.n) + 2)) ] ||
        fail "--threads 2 cloned $(cat t2.n) times, a plain run $(cat base.n): not 2 threads more"
else
    echo "strace cannot trace here: the threads of --threads 1 are not counted"
fi

# same: two output folders hold the same files, byte for byte (summary.json without its times)
same() {
    local a=$1 b=$2 n
    [ -n "$(cd "$a" && find . -type f)" ] || fail "$a is empty"
    for n in $(cd "$a" && find . -type f | sort); do
        [ -f "$b/$n" ] || { fail "$b/$n is missing"; continue; }
        case "$n" in
        */summary.json) cmp -s <(sed 's/"seconds":[0-9.]*//; s#"'"$a"'/#"X/#g' "$a/$n") \
            <(sed 's/"seconds":[0-9.]*//; s#"'"$b"'/#"X/#g' "$b/$n") || fail "$n: counts differ" ;;
        *) cmp -s "$a/$n" "$b/$n" || fail "$n differs between $a and $b" ;;
        esac
    done
    [ "$(cd "$a" && find . -type f | sort)" = "$(cd "$b" && find . -type f | sort)" ] ||
        fail "$a and $b hold different files"
}

# run_both NAME ARGS...: runs ARGS with --threads 1 into NAME.1, by default into NAME.2, and with
# --threads 4 into NAME.4 (more threads than this machine may have cores: batches then finish
# out of order)
run_both() {
    local name=$1 c1 c t
    shift
    "$bin" "$@" --out "$name.1" --threads 1 --quiet 2>"$name.1.err"
    c1=$?
    [ "$c1" = 1 ] || fail "$name: exit $c1 (rejects expected: 1)"
    for t in 2 4; do
        "$bin" "$@" --out "$name.$t" $([ $t = 4 ] && echo --threads 4) --quiet 2>"$name.$t.err"
        c=$?
        [ "$c1" = "$c" ] || fail "$name: exit $c1 with one thread, $c with $t"
        same "$name.1" "$name.$t"
    done
}

run_both csv export input.json.gz --mapping "$M" --format csv
run_both ndjson export input.json.gz --mapping "$M" --format ndjson --gzip
run_both ddbjson export input.json.gz --mapping "$M" --format ddb-json
run_both plain export input.json.gz --mapping "$M" --format ndjson --extra plain
# without a mapping: items as they are (the CSV's columns come from the records: formatted by
# the thread that writes)
run_both items-ndjson export input.json.gz --format ndjson
run_both items-typed export input.json.gz --format ndjson --typed
run_both items-ddbjson export input.json.gz --format ddb-json
run_both items-csv export input.json.gz --format csv
# ... whose rows a thread of their own writes (here: compresses) while the rows are laid out
run_both items-csv-gz export input.json.gz --format csv --gzip
# Parquet: with more than one thread, row groups are encoded on a thread of their own while the
# writing thread gathers the next; small row groups and a small budget make hundreds of them, of
# several files (entities, Hive folders), handed over in turn. --max-file-size parts encode
# their own (each part measures the row groups written).
export DDBPIPE_PARQUET_BUDGET=300000
run_both parquet export input.json.gz --mapping "$M" --format parquet --row-group-rows 300
run_both items-parquet export input.json.gz --format parquet --row-group-rows 500
run_both hive-parquet export input.json.gz --mapping "$M" --format parquet --partition-by dataType
run_both parts-parquet export input.json.gz --mapping "$M" --format parquet --max-file-size 200000
unset DDBPIPE_PARQUET_BUDGET
[ "$(find parquet.1 -name '*.parquet' | wc -l)" -ge 3 ] || fail "parquet: fewer files than entities"
[ "$(find hive-parquet.1 -path '*=*' -name '*.parquet' | wc -l)" -ge 2 ] ||
    fail "hive-parquet: no Hive folders"
[ "$(find parts-parquet.1 -name 'part-*.parquet' | wc -l)" -ge 4 ] ||
    fail "parts-parquet: too few parts"
run_both convert convert input.json.gz --mapping "$M" --to-mapping "$M2"
run_both select export input.json.gz --mapping "$M" --format csv --entities FavoriteData,Tag \
    --where 'userId>=m,dataType^=I'
# --sample stops reading at the N-th record: how far the gzip read-ahead got by then is the only
# difference (bytes in), so those counts are left out of the comparison
for t in 1 2; do
    "$bin" export input.json.gz --mapping "$M" --format ndjson --where 'userId>=m' --sample 5000 \
        --out sample.$t $([ $t = 1 ] && echo --threads 1) --quiet 2>sample.$t.err
    sed -i 's/"bytes_in":[0-9]*,"bytes_decoded":[0-9]*,//' sample.$t/_ddbpipe/summary.json
done
same sample.1 sample.2
grep -q '"rejected":[1-9]' csv.1/_ddbpipe/summary.json || fail "no rejects counted"
grep -q '"unmatched":[1-9]' csv.1/_ddbpipe/summary.json || fail "no unmatched counted"
[ "$(wc -l <csv.2/_ddbpipe/rejects.ndjson)" -ge 50 ] || fail "rejects file too short"

# a dynamodump folder: pages of 10 items, a batch spans several (each page's name is freed when
# its reader moves on), and every 7th item is rejected naming its page
mkdir -p dump/favorites/data
printf '%s\n' '{"Table":{"TableName":"favorites","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"KeySchema":[{"KeyType":"HASH","AttributeName":"pk"},{"KeyType":"RANGE","AttributeName":"sk"}]}}' >dump/favorites/schema.json
gzip -dc dump.json.gz | head -600 | sed 's/^{"Item"://; s/}$//' | awk -v dir=dump/favorites/data '
    NR % 7 == 0 { sub(/"(lsiTwoSk|gsiOneSk)":\{"S":"/, "&x") }
    { page = sprintf("%s/%04d.json", dir, int((NR - 1) / 10) + 1)
      if (page != last) { if (last != "") { print "]}" > last; close(last) }; printf "{\"Items\":[\n" > page; sep = "" }
      printf "%s%s\n", sep, $0 > page; sep = ","; last = page }
    END { print "]}" > last }'
run_both pages export dump/favorites --mapping "$M" --format csv
grep -q 'data/0060.json' pages.2/_ddbpipe/rejects.ndjson || fail "rejects do not name the last page"

# validate writes nothing but its report and summary
"$bin" validate input.json.gz --mapping "$M" --threads 1 --progress off --summary v1.json >v1.out 2>&1
c1=$?
"$bin" validate input.json.gz --mapping "$M" --progress off --summary v2.json >v2.out 2>&1
c2=$?
[ "$c1" = "$c2" ] || fail "validate: exit $c1 vs $c2"
cmp -s <(sed 's/"seconds":[0-9.]*//' v1.json) <(sed 's/"seconds":[0-9.]*//' v2.json) ||
    fail "validate: summaries differ"
cmp -s <(grep -v "records/s" v1.out) <(grep -v "records/s" v2.out) ||
    fail "validate: reports differ"

# --max-rejects: the run stops on the same record whatever the threads
for t in 1 2 4; do
    "$bin" export input.json.gz --mapping "$M" --format csv --out lim.$t --max-rejects 10 \
        --threads $t --summary lim.$t.json --quiet 2>/dev/null
    echo $? >lim.$t.code
done
# (the bytes read differ: records read ahead of the stop were read, and are "not done")
nobytes='s/"seconds":[0-9.]*//; s/"bytes_[a-z]*":[0-9]*//g; s/lim\.[124]/X/g'
for t in 2 4; do
    cmp -s lim.1.code lim.$t.code || fail "--max-rejects: exit codes differ ($t threads)"
    cmp -s <(sed "$nobytes" lim.1.json) <(sed "$nobytes" lim.$t.json) ||
        fail "--max-rejects: counts differ ($t threads)"
done
grep -q '"rejected":11' lim.2.json || fail "--max-rejects 10: not stopped at the 11th reject"

# checkpoints while computing ahead (several a second) leave the same files
for t in 2 4; do
    "$bin" export input.json.gz --mapping "$M" --format csv --out ck$t --state ck$t.state \
        --checkpoint-interval 0 --threads $t --quiet 2>/dev/null
    grep -q '"complete":true' ck$t.state || fail "the state is not complete ($t threads)"
    for n in $(cd csv.1 && find . -type f ! -name summary.json | sort); do
        cmp -s "csv.1/$n" "ck$t/$n" || fail "$n differs after a run with checkpoints ($t threads)"
    done
done

# stopped mid-run under --state (at the 11th reject, with checkpoints all along) with one
# number of threads and resumed with another: the files of the uninterrupted run
for pair in "4 1" "1 4" "2 4"; do
    set -- $pair
    d=res$1$2
    "$bin" export input.json.gz --mapping "$M" --format ndjson --gzip --out $d --state $d.state \
        --checkpoint-interval 0 --max-rejects 10 --threads $1 --quiet 2>/dev/null
    [ $? = 1 ] || fail "$d: the run was not stopped by --max-rejects"
    grep -q '"complete":true' $d.state && fail "$d: stopped, yet the state is complete"
    "$bin" export input.json.gz --mapping "$M" --format ndjson --gzip --out $d --state $d.state \
        --resume --threads $2 --quiet 2>$d.err
    [ $? = 1 ] || fail "$d: the resumed run: $(tail -2 $d.err)"
    for n in $(cd ndjson.1 && find . -type f ! -name summary.json | sort); do
        case "$n" in
        *.gz) cmp -s <(gzip -dc "ndjson.1/$n") <(gzip -dc "$d/$n") ;;
        *) cmp -s "ndjson.1/$n" "$d/$n" ;;
        esac || fail "$n differs after a stop with $1 threads and a resume with $2"
    done
done

# every golden case that exports or converts, in each format it can take (with a mapping: CSV,
# NDJSON, DynamoDB JSON), with 1 and 4 threads (2: the runs above; the cases are small, and a
# run costs its start-up under ThreadSanitizer)
golden=$root/tests/golden/cases
shared=$(cd "$root/../shared/testdata" 2>/dev/null && pwd || echo "$root/../shared/testdata")
compared=0
for c in "$golden"/*/; do
    c=${c%/}
    args=$(cat "$c/cmd")
    case "$args" in export\ * | convert\ *) ;; *) continue ;; esac
    args=${args//\$CASE/.}
    args=${args//\$FORMATS/$root/formats}
    args=${args//\$SAMPLES/$root/samples}
    args=${args//\$SHARED/$shared}
    formats=keep
    case "$args" in *--mapping*) case "$args" in export\ *) formats="csv ndjson ddb-json" ;; esac ;; esac
    for f in $formats; do
        a=$args
        [ "$f" = keep ] || a="$(echo "$args" | sed -E 's/ --format [a-z-]+//') --format $f"
        for t in 1 4; do
            o=$tmp/g-$(basename "$c")-$f-$t
            mkdir -p "$o"
            (cd "$c" && eval "\"$bin\" ${a//\$OUT/$o/out} --threads $t --quiet" \
                <"$([ -f "$c/stdin" ] && echo "$c/stdin" || echo /dev/null)" >"$o/stdout" 2>/dev/null)
            echo $? >"$o/code"
            sed -i "s#$o/out#OUT#g; s/\"seconds\":[0-9.]*//" "$o"/out/_ddbpipe/summary.json 2>/dev/null
        done
        diff -r "$tmp/g-$(basename "$c")-$f-1" "$tmp/g-$(basename "$c")-$f-4" >/dev/null ||
            fail "golden $(basename "$c") --format $f: 4 threads differ from one"
        [ -n "$(ls "$tmp/g-$(basename "$c")-$f-1/out" 2>/dev/null)" ] && compared=$((compared + 1))
    done
done
[ "$compared" -ge 50 ] || fail "only $compared golden runs wrote anything"
finish
