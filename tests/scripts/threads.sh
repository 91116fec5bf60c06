#!/usr/bin/env bash
# Decoding ahead on a second thread changes nothing but the time: export (CSV, NDJSON+gzip,
# DynamoDB JSON), validate and convert give byte-identical files, rejects, unmatched items,
# counts and exit codes with --threads 1 and by default, on an input whose bad lines, unmatched
# items and undecodable items fall in many different batches; --max-rejects stops on the same
# record; checkpoints taken while decoding ahead leave the same outputs.
. "$(dirname "$0")/lib.bash"
gen="$tools/ddbpipe-gen"
M="$root/formats/favorites.json"
M2="$root/formats/favorites-v2.json"
cd "$tmp" || exit 1

"$gen" bench --mapping "$M" --items 30000 --out dump.json.gz >/dev/null || fail generator
# every 997th line is not JSON, every 1009th item belongs to no entity, every 1013th item has
# an index key that its fields do not give (rejected by decode)
gzip -dc dump.json.gz | awk '
    NR % 997 == 0 { print "not json"; next }
    NR % 1009 == 0 { sub(/"pk":\{"S":"[A-Za-z]+#/, "\"pk\":{\"S\":\"Other#") }
    NR % 1013 == 0 { sub(/"(lsiTwoSk|gsiOneSk)":\{"S":"/, "&x") }
    { print }' | gzip -1 >input.json.gz
[ "$(gzip -dc input.json.gz | grep -c '^not json$')" -ge 30 ] || fail "the input has too few bad lines"

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

run_both() { # NAME ARGS...: runs ARGS with --threads 1 into NAME.1 and by default into NAME.2
    local name=$1 c1 c2
    shift
    "$bin" "$@" --out "$name.1" --threads 1 --quiet 2>"$name.1.err"
    c1=$?
    "$bin" "$@" --out "$name.2" --quiet 2>"$name.2.err"
    c2=$?
    [ "$c1" = "$c2" ] || fail "$name: exit $c1 with one thread, $c2 with two"
    [ "$c1" = 1 ] || fail "$name: exit $c1 (rejects expected: 1)"
    same "$name.1" "$name.2"
}

run_both csv export input.json.gz --mapping "$M" --format csv
run_both ndjson export input.json.gz --mapping "$M" --format ndjson --gzip
run_both ddbjson export input.json.gz --mapping "$M" --format ddb-json
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
for t in 1 2; do
    "$bin" export input.json.gz --mapping "$M" --format csv --out lim.$t --max-rejects 10 \
        --threads $t --summary lim.$t.json --quiet 2>/dev/null
    echo $? >lim.$t.code
done
cmp -s lim.1.code lim.2.code || fail "--max-rejects: exit codes differ"
# (the bytes read differ: records read ahead of the stop were read, and are "not done")
nobytes='s/"seconds":[0-9.]*//; s/"bytes_[a-z]*":[0-9]*//g; s/lim\.[12]/X/g'
cmp -s <(sed "$nobytes" lim.1.json) <(sed "$nobytes" lim.2.json) || fail "--max-rejects: counts differ"
grep -q '"rejected":11' lim.2.json || fail "--max-rejects 10: not stopped at the 11th reject"

# checkpoints while decoding ahead (several a second) leave the same files
"$bin" export input.json.gz --mapping "$M" --format csv --out ck --state ck.state \
    --checkpoint-interval 0 --quiet 2>/dev/null
grep -q '"complete":true' ck.state || fail "the state is not complete"
for n in $(cd csv.1 && find . -type f ! -name summary.json | sort); do
    cmp -s "csv.1/$n" "ck/$n" || fail "$n differs after a run with checkpoints"
done
finish
