#!/usr/bin/env bash
# ddbpipe diff on files: equal sides, one changed attribute, a missing and an extra item, a
# number written 1.0 against 1, favorites v1 against its v2 re-keying, items against the record
# files of their export, a sample, items without a mapping, and the usage errors. The mappings
# come from formats/ at run time; the changes are made to attributes the mappings do not
# declare, so the test holds whatever the designs' keys are. An export folder's unmatched items
# are compared too.
. "$(dirname "$0")/lib.bash"
m1="$root/formats/favorites.json"
m2="$root/formats/favorites-v2.json"

check gen 0 "$bin" generate --mapping "$m1" --count 40 --seed 3 --format ddb-json --out "$tmp/a" \
    --quiet --summary "$tmp/gen.json"
total=$(json_number "$tmp/gen.json" written)

# equal sides (the same items), with the summary's keys
check same 0 "$bin" diff "$tmp/a" "$tmp/a" --mapping "$m1" --out "$tmp/d0" --summary "$tmp/s0.json"
expect_in "$tmp/stderr" "the same: $total equal"
for k in equal different only_in_a only_in_b; do
    grep -q "\"$k\":" "$tmp/s0.json" || fail "summary lacks $k"
done
[ "$(json_number "$tmp/s0.json" equal)" = "$total" ] || fail "same: $total equal expected"
[ -f "$tmp/d0/differences.ndjson" ] && [ ! -s "$tmp/d0/differences.ndjson" ] || fail "same: differences file"
ls -A "$tmp/d0" | grep -q '^\.ddbpipe-diff' && fail "same: work folder left behind"

# side B: one item gains an attribute, one is missing, one is extra (from another seed), and one
# undeclared number is written 1 on side A and 1.0 on side B
f=$(ls "$tmp"/a/*.json | head -1)
name=$(basename "$f")
mkdir -p "$tmp/b" "$tmp/a2"
cp "$tmp"/a/*.json "$tmp/a2/"
cp "$tmp"/a/*.json "$tmp/b/"
check other 0 "$bin" generate --mapping "$m1" --count 40 --seed 4 --format ddb-json --out "$tmp/o" --quiet
sed -E '3s/\}\}$/,"zzNum":{"N":"1"}}}/' "$f" >"$tmp/a2/$name"
sed -E -e '1s/\}\}$/,"zzExtra":{"S":"y"}}}/' -e '2d' -e '3s/\}\}$/,"zzNum":{"N":"1.0"}}}/' "$f" >"$tmp/b/$name"
head -1 "$tmp/o/$name" >>"$tmp/b/$name"
check changed 1 "$bin" diff "$tmp/a2" "$tmp/b" --mapping "$m1" --out "$tmp/d1" --summary "$tmp/s1.json"
expect_in "$tmp/stderr" "NOT the same"
[ "$(json_number "$tmp/s1.json" different)" = 1 ] || fail "changed: 1 different expected"
[ "$(json_number "$tmp/s1.json" only_in_a)" = 1 ] || fail "changed: 1 only in A expected"
[ "$(json_number "$tmp/s1.json" only_in_b)" = 1 ] || fail "changed: 1 only in B expected"
[ "$(json_number "$tmp/s1.json" equal)" = $((total - 2)) ] || fail "changed: 1 vs 1.0 must be equal"
expect_in "$tmp/d1/differences.ndjson" '"attributes":{"zzExtra":{"a":null,"b":{"S":"y"}}}'
expect_in "$tmp/d1/differences.ndjson" '"diff":"only_in_a"'
expect_in "$tmp/d1/differences.ndjson" '"diff":"only_in_b"'
[ "$(wc -l <"$tmp/d1/differences.ndjson")" = 3 ] || fail "changed: 3 difference lines expected"
grep -q zzNum "$tmp/d1/differences.ndjson" && fail "changed: 1 and 1.0 reported as different"

# the same records re-keyed with favorites-v2.json compare equal through the two mappings
check to-v2 0 "$bin" convert "$tmp"/a/*.json --mapping "$m1" --to-mapping "$m2" --out "$tmp/v2" --quiet
check v1-v2 0 "$bin" diff "$tmp/a" "$tmp/v2" --mapping "$m1" --to-mapping "$m2" --out "$tmp/d2"
expect_in "$tmp/stderr" "the same: $total equal"
check v1-v2-changed 1 "$bin" diff "$tmp/b" "$tmp/v2" --mapping "$m1" --to-mapping "$m2" --out "$tmp/d3" \
    --summary "$tmp/s3.json"
# b against the original records: zzExtra and zzNum are new, one item gone, one added
[ "$(json_number "$tmp/s3.json" different)" = 2 ] || fail "v1-v2-changed: 2 different expected"
[ "$(json_number "$tmp/s3.json" only_in_a)" = 1 ] || fail "v1-v2-changed: 1 only in A expected"
[ "$(json_number "$tmp/s3.json" only_in_b)" = 1 ] || fail "v1-v2-changed: 1 only in B expected"
# a v2 item read with the v1 mapping is unmatched, not equal
check v2-as-v1 1 "$bin" diff "$tmp/a" "$tmp/v2" --mapping "$m1" --out "$tmp/d4" --summary "$tmp/s4.json"
[ "$(json_number "$tmp/s4.json" equal)" = 0 ] || fail "v2-as-v1: nothing can be equal"

# items against the record files of their export (a folder of <Entity>.csv)
check export-csv 0 "$bin" export "$tmp"/a/*.json --mapping "$m1" --format csv --out "$tmp/rec" --quiet
check items-vs-records 0 "$bin" diff "$tmp/a" "$tmp/rec" --mapping "$m1" --out "$tmp/d5"

# a sample compares the same keys on both sides
check sample 1 "$bin" diff "$tmp/a2" "$tmp/b" --mapping "$m1" --sample 50% --out "$tmp/d6" \
    --summary "$tmp/s6.json"
ca=$(json_number "$tmp/s6.json" compared_in_a)
[ "$ca" -gt 0 ] && [ "$ca" -lt "$total" ] || fail "sample: compared $ca of $total"
check sample-equal 0 "$bin" diff "$tmp/a" "$tmp/a" --mapping "$m1" --sample 0.25 --out "$tmp/d7"

# without a mapping: the key attributes by name (taken from the mapping file here)
key_name() { tr -d '\n' <"$m1" | grep -o "\"$1\": *{ *\"name\": *\"[^\"]*\"" | head -1 | cut -d'"' -f6; }
pk=$(key_name partitionKey)
sk=$(key_name sortKey)
mkdir -p "$tmp/a3"
cp "$tmp"/a2/*.json "$tmp/a3/"
sed 's/"zzNum":{"N":"1"}/"zzNum":{"N":"1.0"}/' "$tmp/a2/$name" >"$tmp/a3/$name"
cmp -s "$tmp/a2/$name" "$tmp/a3/$name" && fail "plain: the number was not rewritten"
check plain 0 "$bin" diff "$tmp/a2" "$tmp/a3" --key "$pk,$sk" --out "$tmp/d8" --summary "$tmp/s8.json"
[ "$(json_number "$tmp/s8.json" equal)" = "$total" ] || fail "plain: 1 and 1.0 (and the rest) equal"
check plain-changed 1 "$bin" diff "$tmp/a2" "$tmp/b" --key "$pk,$sk" --out "$tmp/d9"

# an export folder's unmatched items (OUT/_ddbpipe/unmatched.ndjson) are compared too, as items
mkdir -p "$tmp/a4"
cp "$tmp"/a/*.json "$tmp/a4/"
printf '{"Item":{"%s":{"S":"Other#1"},"%s":{"S":"x"},"n":{"N":"1.0"}}}\n' "$pk" "$sk" >"$tmp/a4/other.json"
check export-unmatched 0 "$bin" export "$tmp"/a4/*.json --mapping "$m1" --format csv --out "$tmp/rec4" --quiet
[ -s "$tmp/rec4/_ddbpipe/unmatched.ndjson" ] || fail "export-unmatched: no _ddbpipe/unmatched.ndjson"
check unmatched-compared 0 "$bin" diff "$tmp/a4" "$tmp/rec4" --mapping "$m1" --out "$tmp/d12" \
    --summary "$tmp/s12.json"
[ "$(json_number "$tmp/s12.json" equal)" = $((total + 1)) ] || fail "unmatched-compared: the unmatched item was not compared"

# usage errors
check one-side 2 "$bin" diff "$tmp/a" --mapping "$m1" && expect_in "$tmp/stderr" "two inputs"
check to-mapping-alone 2 "$bin" diff "$tmp/a" "$tmp/b" --to-mapping "$m2" && expect_in "$tmp/stderr" "--mapping"
check no-key 2 "$bin" diff "$tmp/a" "$tmp/b" --out "$tmp/d10" && expect_in "$tmp/stderr" "--key"
check bad-sample 2 "$bin" diff "$tmp/a" "$tmp/b" --mapping "$m1" --sample 150% && expect_in "$tmp/stderr" "--sample"
mkdir -p "$tmp/empty"
check empty-side 2 "$bin" diff "$tmp/a" "$tmp/empty" --mapping "$m1" && expect_in "$tmp/stderr" "no files"
check missing-side 3 "$bin" diff "$tmp/a" "$tmp/nope.json" --mapping "$m1" --out "$tmp/d11"
# a side past --max-rejects stops the run before anything is compared
printf 'not json\nnor this\n' >>"$tmp/a4/other.json"
check rejects-compared 1 "$bin" diff "$tmp/a4" "$tmp/a" --mapping "$m1" --out "$tmp/d13"
expect_in "$tmp/stderr" "NOT the same"
check rejects-stop 1 "$bin" diff "$tmp/a4" "$tmp/a" --mapping "$m1" --out "$tmp/d14" --max-rejects 1
expect_in "$tmp/stderr" "more than the 1 allowed"
[ ! -e "$tmp/d14/differences.ndjson" ] || fail "rejects-stop: compared a side read in part"
# rejects on either side: nothing compared differs, but the rejected records were not compared
# (side A's rejects were dropped: "the same", exit 0); without --out the files go to a folder
# of the run's own, not the current folder, and the report names them
mkdir -p "$tmp/arej" "$tmp/cwd"
cp "$tmp"/a/*.json "$tmp/arej/"
printf 'not json\nnor this\n' >>"$tmp/arej/$name"
(cd "$tmp/cwd" && "$bin" diff "$tmp/arej" "$tmp/a" --mapping "$m1" >"$tmp/unproven-a.out" 2>"$tmp/unproven-a.err")
got=$?
[ "$got" = 7 ] || fail "unproven-a: exit $got, expected 7"
expect_in "$tmp/unproven-a.err" "not proven equal"
expect_in "$tmp/unproven-a.err" "rejects of A: ddbpipe-runs/diff-"
expect_in "$tmp/unproven-a.err" "differences: ddbpipe-runs/diff-"
[ -z "$(ls -A "$tmp/cwd" | grep -v '^ddbpipe-runs$')" ] || fail "unproven-a: files in the current folder: $(ls -A "$tmp/cwd")"
ls "$tmp"/cwd/ddbpipe-runs/diff-*/_rejects_a.ndjson >/dev/null 2>&1 || fail "unproven-a: no rejects file in ddbpipe-runs/diff-*/"
check unproven-b 7 "$bin" diff "$tmp/a" "$tmp/arej" --mapping "$m1" --out "$tmp/d15" --summary "$tmp/s15.json"
expect_in "$tmp/stderr" "rejects of B: $tmp/d15/_rejects_b.ndjson"
expect_in "$tmp/s15.json" '"exit_code":7'
check help-exit-7 0 "$bin" --help && expect_in "$tmp/stdout" "7    diff: no difference found"
check url-out 2 "$bin" diff "$tmp/a" "$tmp/a" --mapping "$m1" --out s3://bucket/d && expect_in "$tmp/stderr" "a URL"
check help 0 "$bin" diff --help && expect_in "$tmp/stdout" "--to-table"
finish
