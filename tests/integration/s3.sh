#!/usr/bin/env bash
# S3 where the data lives, against s3rver (npm, pinned) behind tests/s3-server/s3-server.js, which
# checks SigV4 with the test keys, payload hashes, If-Match and the multipart rules as S3 does.
# The AWS CLI uploads and downloads as an independent client. Proves: the shared real AWS export
# read from s3:// equals the local run (both its exports); a prefix of gzip files; a connection
# dropped mid-object (the fault server between the front and s3rver) resumes exactly; --shard 1..3
# together equal one run; outputs to s3:// (multipart, gzip, rejects, unmatched, summary) equal local
# ones; a folder of them reads back as a local one does (its _ files left out); a
# CompleteMultipartUpload answered 200 with an error is retried; a run interrupted with SIGINT
# aborts its uploads (nothing visible, nothing left open), but not a completion in flight (the run
# ends whole and says so); one killed under --state leaves nothing
# visible and --resume completes it, the rejects kept before the kill included; a bucket in another
# region is followed (301); wrong keys fail. JSON documents, a Workbench model and a dynamodump
# backup read from s3:// as locally; CSV without a mapping (spilled locally) written to s3://; an
# output prefix kept as one unit as a local folder is (manifest, summary, column types, stale files
# removed, foreign objects refused).
. "$(dirname "$0")/lib.bash"
command -v aws >/dev/null || { echo "the AWS CLI is not installed (scripts/install-deps.sh)" >&2; exit 1; }
export_dir="$shared/aws-export"
full=01716790307109-5f9d6aaa
incr=01716791487000-6ddcf8cf

start_s3 data euro:eu-west-1
awss3() { aws --endpoint-url "$s3" "$@"; }
ctl() { curl -s -XPOST "$s3/__control" -d "$1" >/dev/null; }
uploads() { curl -s "$s3/__uploads"; }

awss3 s3 cp --quiet --recursive "$export_dir" s3://data/exports/AWSDynamoDB/ || fail "upload the export"

# -- the real export from s3:// equals the local run ----------------------------------------------
for e in $full $incr; do
    run "local-$e" 0 "$bin" export "$export_dir/$e" --out "$tmp/local/$e"
    run "s3-$e" 0 "$bin" export "s3://data/exports/AWSDynamoDB/$e/" --out "$tmp/froms3/$e"
done
diff -r -x summary.json "$tmp/local" "$tmp/froms3" >/dev/null || fail "export from s3:// differs from the local run"
grep -q '133199' "$tmp/s3-$full.err" || fail "full export: 133199 records read"

# -- a prefix of gzip files, in key order ----------------------------------------------------------
mkdir -p "$tmp/gz"
split -l 40000 -d "$tmp/local/$full/items.ndjson" "$tmp/gz/part-"
for f in "$tmp"/gz/part-*; do
    node -e 'const fs=require("fs");for(const l of fs.readFileSync(process.argv[1],"utf8").split("\n"))if(l)console.log(JSON.stringify({Item:Object.fromEntries(Object.entries(JSON.parse(l)).map(([k,v])=>[k,typeof v==="number"?{N:String(v)}:{S:String(v)}]))}))' "$f" | gzip >"$f.json.gz"
    rm "$f"
done
awss3 s3 cp --quiet --recursive "$tmp/gz" s3://data/gz/ || fail "upload gz"
run gz-local 0 "$bin" export "$tmp"/gz/part-*.json.gz --out "$tmp/gzl" --format ddb-json
run gz-s3 0 "$bin" export s3://data/gz/ --out "$tmp/gzs" --format ddb-json
cmp -s "$tmp/gzl/items.json" "$tmp/gzs/items.json" || fail "prefix of gzip files differs"

# -- JSON documents, a Workbench model and a dynamodump backup read from s3:// as locally (the
# backup given as its table's folder or the dump folder above it, with or without a final /);
# CSV without a mapping written to s3:// equals the local file, its rows spilled on the local disk
# (TMPDIR, or beside --state) and the spill removed
cases="$root/tests/golden/cases"
awss3 s3 cp --quiet "$cases/public-moviedata-array/moviedata.json" s3://data/docs/a-movies.json &&
    awss3 s3 cp --quiet "$cases/public-workbench-shop/AnOnlineShop.json" s3://data/docs/b-shop.json &&
    awss3 s3 cp --quiet --recursive "$cases/public-dynamodump/dump" s3://data/dump/ ||
    fail "upload the documents and the backup"
run docs-local 0 "$bin" export "$cases/public-moviedata-array/moviedata.json" \
    "$cases/public-workbench-shop/AnOnlineShop.json" --out "$tmp/docsl" --format ddb-json
for u in s3://data/docs/ "s3://data/docs/a-movies.json s3://data/docs/b-shop.json"; do
    rm -rf "$tmp/docss"
    # shellcheck disable=SC2086
    run docs-s3 0 "$bin" export $u --out "$tmp/docss" --format ddb-json
    cmp -s "$tmp/docsl/items.json" "$tmp/docss/items.json" || fail "documents from $u differ"
done
run dump-local 0 "$bin" export "$cases/public-dynamodump/dump" --out "$tmp/dumpl" --format ddb-json
for u in s3://data/dump s3://data/dump/ s3://data/dump/testTable; do
    rm -rf "$tmp/dumps"
    run dump-s3 0 "$bin" export "$u" --out "$tmp/dumps" --format ddb-json
    [ -s "$tmp/dumpl/items.json" ] && cmp -s "$tmp/dumpl/items.json" "$tmp/dumps/items.json" ||
        fail "the dynamodump backup from $u differs"
done
run csv-local 0 "$bin" export "$cases/public-moviedata-array/moviedata.json" --out "$tmp/csvl" \
    --format csv
mkdir -p "$tmp/spill"
run csv-s3 0 env TMPDIR="$tmp/spill" "$bin" export s3://data/docs/a-movies.json \
    --out s3://data/csv/ --format csv
run csv-s3-state 0 "$bin" export s3://data/docs/a-movies.json --out s3://data/csvst/ --format csv \
    --state "$tmp/csv.state"
for d in csv csvst; do
    awss3 s3 cp --quiet "s3://data/$d/items.csv" "$tmp/$d.csv" || fail "CSV in s3 ($d)"
    cmp -s "$tmp/csvl/items.csv" "$tmp/$d.csv" || fail "CSV without a mapping to s3 differs ($d)"
done
head -1 "$tmp/csvl/items.csv" | grep -q 'year:N' || fail "the CSV header has no typed column"
[ -z "$(ls -A "$tmp/spill")" ] || fail "the spill was left in TMPDIR: $(ls -A "$tmp/spill")"
[ -z "$(find "$tmp" -name '*.spill*')" ] || fail "a spill was left: $(find "$tmp" -name '*.spill*')"

# -- --shard 1..3 together equal one run ------------------------------------------------------------
for i in 1 2 3; do
    run "shard$i" 0 "$bin" export "s3://data/exports/AWSDynamoDB/$full/" --shard "$i/3" \
        --out "$tmp/shard$i"
    run "gzshard$i" 0 "$bin" export s3://data/gz/ --shard "$i/3" --out "$tmp/gzshard$i" \
        --format ddb-json
done
cat "$tmp"/shard{1,2,3}/items.ndjson | LC_ALL=C sort >"$tmp/shards.sorted"
LC_ALL=C sort "$tmp/local/$full/items.ndjson" >"$tmp/one.sorted"
cmp -s "$tmp/shards.sorted" "$tmp/one.sorted" || fail "export shards do not add up to one run"
for i in 1 2 3; do [ -s "$tmp/shard$i/items.ndjson" ] || fail "shard $i read nothing"; done
cat "$tmp"/gzshard{1,2,3}/items.json | LC_ALL=C sort >"$tmp/gzshards.sorted"
LC_ALL=C sort "$tmp/gzl/items.json" >"$tmp/gzone.sorted"
cmp -s "$tmp/gzshards.sorted" "$tmp/gzone.sorted" || fail "prefix shards do not add up to one run"

# -- a connection dropped mid-object resumes at the byte where it stopped ---------------------------
node "$root/tests/fault-server/fault-server.js" --upstream "http://127.0.0.1:$s3rver_port" \
    --port-file "$tmp/fport" --owner-pid $$ --quiet >"$tmp/fault.log" 2>&1 &
fault_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fs="http://127.0.0.1:$(cat "$tmp/fport")"
ctl "{\"upstream\":\"$fs\"}"
curl -s -XPOST "$fs/__control" -d '{"rules":[{"kind":"drop","when":"mid","op":"GetObject","nth":[1,3,4]}]}' >/dev/null
run drop 0 "$bin" export "s3://data/exports/AWSDynamoDB/$full/" --out "$tmp/dropped"
cmp -s "$tmp/dropped/items.ndjson" "$tmp/local/$full/items.ndjson" || fail "dropped: output differs"
fired=$(curl -s "$fs/__stats" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).faults.drop)')
[ "$fired" = 3 ] || fail "dropped: $fired drops fired, want 3"
# Each resumed GET asked only for the rest: the bytes fetched are the files' sizes, once.
ranges=$(curl -s "$fs/__events" | node -e '
let n = 0; const ev = JSON.parse(require("fs").readFileSync(0, "utf8"));
for (const e of ev) if (e.op === "GetObject") n++; console.log(n)')
[ "$ranges" -ge 7 ] || fail "dropped: expected the resumed GETs ($ranges GetObject requests)"
ctl "{\"upstream\":\"http://127.0.0.1:$s3rver_port\"}"
kill "$fault_pid" 2>/dev/null
fault_pid=

# -- outputs to s3:// equal local ones: multipart, gzip, rejects, summary ---------------------------
run out-local 0 "$bin" export "$export_dir/$full" --out "$tmp/outl" --format ddb-json
ctl '{"completeErrors":1}'
run out-s3 0 "$bin" export "$export_dir/$full" --out s3://data/out/ --format ddb-json \
    --summary s3://data/out-summary.json
awss3 s3 cp --quiet s3://data/out/items.json "$tmp/outs.json" || fail "download the output"
cmp -s "$tmp/outs.json" "$tmp/outl/items.json" || fail "multipart output differs"
awss3 s3 cp --quiet s3://data/out-summary.json "$tmp/outs-summary.json" || fail "summary in s3"
grep -q '"written":133199' "$tmp/outs-summary.json" || fail "summary in s3: counts"
[ "$(curl -s "$s3/__stats" | sed -n 's/.*"completeError":\([0-9]*\).*/\1/p')" = 1 ] ||
    fail "the 200-with-error CompleteMultipartUpload was not exercised"
run gz-out 0 "$bin" export "$export_dir/$full" --out s3://data/outgz/ --format ddb-json --gzip
awss3 s3 cp --quiet s3://data/outgz/items.json.gz - | gunzip | cmp -s - "$tmp/outl/items.json" ||
    fail "gzip output to s3 differs"
printf '{"Item":{"pk":{"S":"a"}}}\nnot json\n' >"$tmp/bad.json"
run rejects 1 "$bin" export "$tmp/bad.json" --out s3://data/rej/
awss3 s3 cp --quiet s3://data/rej/_ddbpipe/rejects.ndjson "$tmp/rej.ndjson" || fail "rejects in s3"
grep -q '"line":2' "$tmp/rej.ndjson" || fail "rejects in s3: the bad line"
[ "$(uploads)" = "[]" ] || fail "uploads left open: $(uploads)"

# -- the unmatched file goes beside outputs in s3:// as the rejects file does; such a folder (with
# or without its final /) reads back as its files, its _ files left out, as a local folder does
fav="$root/formats/favorites.json"
sample="$root/samples/favorites/export"
run um-local 0 "$bin" export "$sample" --mapping "$fav" --out "$tmp/uml" --max-rejects 1000
run um-s3 0 "$bin" export "$sample" --mapping "$fav" --out s3://data/um --max-rejects 1000
for f in unmatched.ndjson rejects.ndjson; do
    [ -s "$tmp/uml/_ddbpipe/$f" ] || fail "unmatched: the sample gives no _ddbpipe/$f"
    awss3 s3 cp --quiet "s3://data/um/_ddbpipe/$f" "$tmp/um-$f" || fail "unmatched: no _ddbpipe/$f in s3"
    cmp -s "$tmp/um-$f" "$tmp/uml/_ddbpipe/$f" || fail "unmatched: _ddbpipe/$f in s3 differs"
done
run um-back-local 0 "$bin" validate "$tmp/uml" --mapping "$fav" --summary "$tmp/umb-l.json"
run um-back-s3 0 "$bin" validate s3://data/um --mapping "$fav" --summary "$tmp/umb-s.json"
run um-back-s3-slash 0 "$bin" validate s3://data/um/ --mapping "$fav" --summary "$tmp/umb-s2.json"
want=$(summary_total "$tmp/umb-l.json" read)
[ "$want" -gt 0 ] && [ "$(summary_total "$tmp/umb-s.json" read)" = "$want" ] &&
    [ "$(summary_total "$tmp/umb-s2.json" read)" = "$want" ] &&
    [ "$(summary_total "$tmp/umb-s.json" rejected)" = 0 ] ||
    fail "a folder in s3 reads as the local one: $want read locally"

# -- an s3:// output prefix is one unit, as a local folder is: the manifest, the summary and the
# column types in _ddbpipe/ (as the local run's), the previous run's files replaced and its stale
# ones removed (entity files and column types), objects ddbpipe did not write refused unless
# --overwrite, and then left alone
s3ls() { awss3 s3 ls --recursive "s3://data/$1/" | awk '{print $4}' | sed "s|^$1/||" | sort | tr '\n' ' '; }
run unit-local 0 "$bin" export "$sample" --mapping "$fav" --format csv --out "$tmp/unl" \
    --max-rejects 1000
run unit-1 0 "$bin" export "$sample" --mapping "$fav" --format csv --out s3://data/unit/ \
    --max-rejects 1000
awss3 s3 cp --quiet --recursive s3://data/unit/ "$tmp/uns" || fail "unit: download the prefix"
diff -r -x summary.json "$tmp/unl" "$tmp/uns" >"$tmp/unit.diff" ||
    fail "unit: the prefix differs from the local folder: $(head -5 "$tmp/unit.diff")"
[ -s "$tmp/uns/_ddbpipe/manifest.json" ] && [ -s "$tmp/uns/_ddbpipe/schema/Tag.json" ] &&
    [ -s "$tmp/uns/_ddbpipe/schema/load.duckdb.sql" ] || fail "unit: no manifest or column types"
[ "$(summary_total "$tmp/uns/_ddbpipe/summary.json" written)" = \
    "$(summary_total "$tmp/unl/_ddbpipe/summary.json" written)" ] || fail "unit: the summary"
grep -q '"s3://data/unit/Tag.csv"' "$tmp/uns/_ddbpipe/summary.json" || fail "unit: summary outputs"
# again as NDJSON with a mapping of one entity: the CSV files and the others' column types go
node -e 'const m = require(process.argv[1]); m.entities = m.entities.filter(e => e.name === "Tag");
    console.log(JSON.stringify(m))' "$fav" >"$tmp/tag-only.json"
run unit-2 0 "$bin" export "$sample" --mapping "$tmp/tag-only.json" --format ndjson \
    --out s3://data/unit --max-rejects 1000
said="removed 3 files of the previous run in s3://data/unit that this run did not write: Tag.csv,"
grep -q "$said FavoriteData.csv, FavoriteDataTag.csv" "$tmp/unit-2.err" ||
    fail "unit-2: the removal is not reported: $(cat "$tmp/unit-2.err")"
want="Tag.ndjson _ddbpipe/manifest.json _ddbpipe/rejects.ndjson _ddbpipe/schema/Tag.athena.sql \
_ddbpipe/schema/Tag.json _ddbpipe/schema/load.duckdb.sql _ddbpipe/summary.json \
_ddbpipe/unmatched.ndjson "
[ "$(s3ls unit)" = "$(echo "$want" | tr -s ' \n' ' ')" ] ||
    fail "unit-2: the prefix holds $(s3ls unit)"
echo mine | awss3 s3 cp --quiet - s3://data/unit/notes.txt || fail "unit: upload notes.txt"
run unit-foreign 2 "$bin" export "$sample" --mapping "$fav" --out s3://data/unit/ --max-rejects 1000
grep -q "holds 1 file ddbpipe did not write (notes.txt)" "$tmp/unit-foreign.err" ||
    fail "unit-foreign: $(cat "$tmp/unit-foreign.err")"
[ "$(s3ls unit)" = "$(echo "$want" | tr -s ' \n' ' ')notes.txt " ] ||
    fail "unit-foreign: the refused run changed the prefix: $(s3ls unit)"
run unit-overwrite 0 "$bin" export "$sample" --mapping "$fav" --out s3://data/unit/ \
    --max-rejects 1000 --overwrite
grep -q "beside 1 file ddbpipe did not write" "$tmp/unit-overwrite.err" || fail "unit-overwrite: said"
[ "$(awss3 s3 cp s3://data/unit/notes.txt -)" = mine ] || fail "unit-overwrite: notes.txt touched"
# a clean run leaves no rejects or unmatched file of an earlier run to be taken for its own, and a
# run that writes no column types leaves none of an earlier run's
run unit-clean 0 "$bin" encode "$root/samples/favorites/seed/Tag.csv" --entity Tag --mapping "$fav" \
    --out s3://data/unit/ --overwrite
case " $(s3ls unit)" in
*" Tag.json "*"_ddbpipe/manifest.json "*) ;;
*) fail "unit-clean: the prefix holds $(s3ls unit)" ;;
esac
case " $(s3ls unit)" in
*rejects* | *unmatched* | *Tag.csv* | *Tag.ndjson* | *schema*) fail "unit-clean: stale: $(s3ls unit)" ;;
esac
[ "$(uploads)" = "[]" ] || fail "unit: uploads left open: $(uploads)"
# a DeleteObject answered 404 NoSuchBucket (the bucket deleted during the run) is a failure, not a
# file removed: S3 answers 204 for a key that is not there (before, the run said it removed them)
run unit-csv 0 "$bin" export "$sample" --mapping "$fav" --format csv --out s3://data/unit/ \
    --max-rejects 1000 --overwrite
ctl '{"deleteNoSuchBucket": 100}'
run unit-gone 4 "$bin" export "$sample" --mapping "$tmp/tag-only.json" --format ndjson \
    --out s3://data/unit --max-rejects 1000 --overwrite
ctl '{"deleteNoSuchBucket": 0}'
grep -q "DeleteObject: NoSuchBucket" "$tmp/unit-gone.err" || fail "unit-gone: $(tail -3 "$tmp/unit-gone.err")"
grep -q "removed 3 files" "$tmp/unit-gone.err" && fail "unit-gone: said removed"
# a bucket that does not exist is said before anything is read
run unit-nobucket 2 "$bin" export "$sample" --mapping "$fav" --out s3://no-such-bucket/x/
grep -q "cannot read the output folder: .*NoSuchBucket" "$tmp/unit-nobucket.err" ||
    fail "unit-nobucket: $(tail -3 "$tmp/unit-nobucket.err")"
grep -q "records/s" "$tmp/unit-nobucket.err" && fail "unit-nobucket: the input was read first"

# -- SIGINT without --state aborts the uploads: nothing visible, nothing left open ------------------
"$bin" export "$export_dir/$full" --out s3://data/int/ --format ddb-json >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
for _ in $(seq 1 200); do
    [ "$(uploads)" != "[]" ] && break
    sleep 0.02
done
kill -INT "$pid"
wait "$pid"
[ $? = 130 ] || fail "interrupted run: exit status"
[ -z "$(awss3 s3 ls s3://data/int/)" ] || fail "interrupted run: something became visible"
[ "$(uploads)" = "[]" ] || fail "interrupted run: uploads left open: $(uploads)"

# Interrupts around the commit of an output. The input: a generated favorites dump whose
# FavoriteData.csv is two parts (the second sent as the run ends), Tag.csv and FavoriteDataTag.csv
# one request each, with 60,000 bad lines before it (their rejects file is two parts too).
"$tools/ddbpipe-gen" export --mapping "$fav" --items 120000 --unmatched 0 --invalid 0 --files 1 \
    --seed 5 --out "$tmp/two" >/dev/null || fail "generate the commit input"
node -e 'for (let i = 0; i < 60000; i++)
    console.log(JSON.stringify({ Item: { pk: { S: "Tag#u" + i }, sk: { N: "bad " + i } } }))' \
    >"$tmp/bad-many.json"
commit_in=("$tmp/bad-many.json" "$tmp"/two/AWSDynamoDB/*)
run commit-local 0 "$bin" export "${commit_in[@]}" --mapping "$fav" --format csv --out "$tmp/cl" \
    --max-rejects 100000
# stat_of EXPR: EXPR of the front's /__stats (j), e.g. 'j.partsHeld'
stat_of() {
    curl -s "$s3/__stats" | node -e 'let s = ""; process.stdin.on("data", (d) => { s += d })
        .on("end", () => { const j = JSON.parse(s); console.log(eval(process.argv[1])) })' "$1"
}
parts_sent() { stat_of 'j.byOp.UploadPart || 0'; }
# stopped PID: waits for PID, at most 60 s (then kills it); its exit status, or 255 when killed
stopped() {
    local i
    for i in $(seq 1 600); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$1" 2>/dev/null && { kill -KILL "$1"; wait "$1"; return 255; }
    wait "$1"
}
# parts_mark, before a run is started; wait_parts N: until N more parts than at the mark reached
# the server (a mark taken after the start could count the run's first part)
parts_mark() { parts_base=$(parts_sent); }
wait_parts() {
    local want=$((parts_base + $1))
    for _ in $(seq 1 400); do
        [ "$(parts_sent)" -ge "$want" ] && return 0
        sleep 0.02
    done
    return 1
}

# -- SIGINT while S3 completes an upload (done, its answer delayed): a commit is not cut, so the run
# knows what S3 did. It ends whole, as if not interrupted, and says so: every file, the column
# types, the rejects (two parts, sent after the commit) and the manifest -----------------------------
ctl '{"completeDelayMs": 3000}'
"$bin" export "${commit_in[@]}" --mapping "$fav" --format csv --out s3://data/commit/ \
    --max-rejects 100000 >"$tmp/commit.out" 2>"$tmp/commit.err" &
pid=$!
for _ in $(seq 1 1500); do
    curl -s "$s3/__stats" | grep -q '"completedUnanswered":1' && break
    sleep 0.01
done
curl -s "$s3/__stats" | grep -q '"completedUnanswered":1' || fail "commit: no completion was held"
kill -INT "$pid"
wait "$pid"
st_commit=$?
[ "$st_commit" = 0 ] ||
    fail "interrupted commit: exit status $st_commit: $(grep -v "^ " "$tmp/commit.err" | tail -5)"
grep -q "committed whole" "$tmp/commit.err" || fail "interrupted commit: not said"
awss3 s3 cp --quiet --recursive s3://data/commit/ "$tmp/commit" || fail "interrupted commit: download"
diff -r -x summary.json "$tmp/cl" "$tmp/commit" >"$tmp/commit.diff" ||
    fail "interrupted commit: differs from the local run: $(head -5 "$tmp/commit.diff")"
[ "$(wc -l <"$tmp/commit/_ddbpipe/rejects.ndjson")" = 60000 ] || fail "interrupted commit: rejects"
grep -q '"FavoriteData.csv"' "$tmp/commit/_ddbpipe/manifest.json" ||
    fail "interrupted commit: the manifest misses a file"
[ "$(uploads)" = "[]" ] || fail "interrupted commit: uploads left open: $(uploads)"

# -- the files of an output appear all or none: every upload's last part is sent and confirmed before
# any file is committed, so an interrupt while one is sent leaves nothing visible (before, Tag.csv,
# put in one request, came first and stayed) ---------------------------------------------------------
ctl '{"partDelayMs": 2500}'
parts_mark
"$bin" export "$tmp"/two/AWSDynamoDB/* --mapping "$fav" --format csv --out s3://data/two/ \
    >"$tmp/two.out" 2>"$tmp/two.err" &
pid=$!
wait_parts 2 || fail "two-phase: the last part was never sent"
kill -INT "$pid"
wait "$pid"
st_two=$?
[ "$st_two" = 130 ] || fail "two-phase: exit status $st_two: $(grep -v "^ " "$tmp/two.err" | tail -3)"
[ -z "$(awss3 s3 ls --recursive s3://data/two/)" ] ||
    fail "two-phase: visible after the interrupt: $(awss3 s3 ls --recursive s3://data/two/)"
[ "$(uploads)" = "[]" ] || fail "two-phase: uploads left open: $(uploads)"
# the same under --state: the uploads stay open, the checkpoint before the end stands (a part sent
# as the run ended is not taken for a prefix to continue), and --resume ends equal to a local run
parts_mark
"$bin" export "$tmp"/two/AWSDynamoDB/* --mapping "$fav" --format csv --out s3://data/two/ \
    --state "$tmp/two.state" >"$tmp/two-st.out" 2>"$tmp/two-st.err" &
pid=$!
wait_parts 2 || fail "two-phase --state: the last part was never sent"
kill -INT "$pid"
wait "$pid"
st_two=$?
ctl '{"partDelayMs": 0}'
[ "$st_two" = 130 ] ||
    fail "two-phase --state: exit status $st_two: $(grep -v "^ " "$tmp/two-st.err" | tail -3)"
grep -q "the checkpoint saved before stands" "$tmp/two-st.err" || fail "two-phase --state: not said"
[ -z "$(awss3 s3 ls --recursive s3://data/two/)" ] || fail "two-phase --state: visible"
run two-resume 0 "$bin" export "$tmp"/two/AWSDynamoDB/* --mapping "$fav" --format csv \
    --out s3://data/two/ --state "$tmp/two.state" --resume
run two-local 0 "$bin" export "$tmp"/two/AWSDynamoDB/* --mapping "$fav" --format csv --out "$tmp/tl"
for f in Tag.csv FavoriteData.csv FavoriteDataTag.csv; do
    awss3 s3 cp --quiet "s3://data/two/$f" - | cmp -s - "$tmp/tl/$f" || fail "two-phase resumed: $f"
done
[ "$(uploads)" = "[]" ] || fail "two-phase resumed: uploads left open: $(uploads)"

# -- CSV without a mapping (rows replayed from the spill once the header is known) is sent whole
# before anything is committed too: 100,000 deletes (deletes.csv, two parts) and 5 puts (items.csv) --
node -e 'const t = []
    for (let i = 0; i < 5; i++) t.push({ PutRequest: { Item: { pk: { S: "put" + i } } } })
    for (let i = 0; i < 100000; i++)
        t.push({ DeleteRequest: { Key: { pk: { S: "del-" + String(i).padStart(8, "0") + "-" + "x".repeat(90) } } } })
    process.stdout.write(JSON.stringify({ Table: t }))' >"$tmp/req.json"
ctl '{"partDelayMs": 2500}'
parts_mark
"$bin" export "$tmp/req.json" --format csv --out s3://data/union/ >"$tmp/union.out" \
    2>"$tmp/union.err" &
pid=$!
wait_parts 2 || fail "union: the last part was never sent"
kill -INT "$pid"
wait "$pid"
st_union=$?
ctl '{"partDelayMs": 0}'
[ "$st_union" = 130 ] || fail "union: exit status $st_union: $(grep -v "^ " "$tmp/union.err" | tail -3)"
[ -z "$(awss3 s3 ls --recursive s3://data/union/)" ] ||
    fail "union: visible after the interrupt: $(awss3 s3 ls --recursive s3://data/union/)"
[ "$(uploads)" = "[]" ] || fail "union: uploads left open: $(uploads)"

# -- an input that pauses (a FIFO whose writer has sent all but the end): the uploads in flight go on
# meanwhile (before, nothing drove them while the read waited, and a part half sent stalled until
# the input moved), and an interrupt stops the wait. FavoriteDataTag.csv's first part is held by
# the server until the test lets it go (a timed hold ran out on a slow machine before the input was
# drained, and the part was answered before it was looked for), so the checkpoint the stop takes cannot be confirmed: the one saved before stands,
# and is what the summary counts (before, every row was "written"). Open after the run: exactly
# the uploads that saved checkpoint names.
"$tools/ddbpipe-gen" export --mapping "$fav" --items 500000 --unmatched 0 --invalid 0 --files 1 \
    --seed 6 --out "$tmp/held" >/dev/null || fail "generate the held input"
ctl '{"partHold": true, "partDelayKey": "FavoriteDataTag"}'
mkfifo "$tmp/held.fifo" "$tmp/named.fifo"
"$bin" export "$tmp/held.fifo" --mapping "$fav" --format csv --out s3://data/held/ \
    --state "$tmp/held.state" --summary "$tmp/held.json" >"$tmp/held.out" 2>"$tmp/held.err" &
pid=$!
exec {feed}>"$tmp/held.fifo"
gzip -dc "$tmp"/held/AWSDynamoDB/*/data/*.json.gz >&"$feed" &
feeder=$!
# settled: one part held, every other answered, the same twice a quarter of a second apart
held_at() { stat_of 'j.partsHeld + " " + (j.byOp.UploadPart - j.partsAnswered) + " " + j.byOp.UploadPart'; }
prev=""
for _ in $(seq 1 600); do
    now=$(held_at)
    [ "${now% *}" = "1 1" ] && [ "$now" = "$prev" ] && break
    prev=$now
    sleep 0.25
done
[ "$(stat_of 'j.partsHeld')" = 1 ] ||
    fail "held: no part was held (parts held, in flight, sent: $(held_at); the run is $(kill -0 "$pid" 2>/dev/null && echo running || echo over): $(grep -v '^ ' "$tmp/held.err" | tail -3)"
kill -INT "$pid"
# the part is let go once the stop has said where it stands: until then it is in flight
for _ in $(seq 1 300); do
    grep -q "the checkpoint saved before stands" "$tmp/held.err" && break
    sleep 0.1
done
ctl '{"partHold": false, "partDelayKey": ""}'
stopped "$pid"
st_held=$?
kill "$feeder" 2>/dev/null
wait "$feeder" 2>/dev/null
exec {feed}>&-
[ "$st_held" = 130 ] || fail "held: exit status $st_held: $(grep -v "^ " "$tmp/held.err" | tail -3)"
grep -q "FavoriteDataTag.csv: a part was still being sent): the checkpoint saved before stands" \
    "$tmp/held.err" || fail "held: not said"
[ "$(summary_total "$tmp/held.json" written)" = \
    "$(sed -n 's/.*"total":\[[0-9]*,\([0-9]*\),.*/\1/p' "$tmp/held.state")" ] ||
    fail "held: written is not what the saved checkpoint holds"
[ "$(summary_total "$tmp/held.json" not_done)" -gt 0 ] || fail "held: nothing counted as not done"
open_ids=$(uploads | node -e 'let s = ""; process.stdin.on("data", (d) => { s += d })
    .on("end", () => { for (const u of JSON.parse(s)) console.log(u.id) })' | sort)
named_ids=$(grep -o '"s3":"[^ "]*' "$tmp/held.state" | cut -d'"' -f4 | grep -v '^-$' | sort)
[ "$open_ids" = "$named_ids" ] ||
    fail "held: the open uploads are not those the saved state names: open $open_ids; named $named_ids"
for id in $named_ids; do
    awss3 s3api abort-multipart-upload --bucket data --key held/FavoriteData.csv --upload-id "$id" ||
        fail "held: abort the upload the state names"
done

# -- an upload is left open for --resume only once a saved checkpoint names it. FavoriteData.csv's
# first part is sent and confirmed while the input pauses, so no checkpoint came after it; then the
# state file cannot be replaced (a folder is in its place) and the run is interrupted. The
# checkpoint taken at the stop names the upload but is never saved: the upload is aborted. (Before,
# taking the checkpoint marked it named, and it stayed open, unseen, and paid for.)
# (--checkpoint-interval 3600: no timed checkpoint may come while the test waits for the part,
# which on a loaded machine took longer than the default 10 s and met the case only by luck)
"$bin" export "$tmp/named.fifo" --mapping "$fav" --format csv --out s3://data/named/ \
    --state "$tmp/named.state" --checkpoint-interval 3600 >"$tmp/named.out" 2>"$tmp/named.err" &
pid=$!
parts_mark
exec {feed}>"$tmp/named.fifo" # opens once the run has saved its first state and reads the input
gzip -dc "$tmp"/held/AWSDynamoDB/*/data/*.json.gz | grep -F '"pk":{"S":"FavoriteData#' |
    head -45000 >&"$feed"
wait_parts 1 || fail "named: no part was sent while the input paused"
for _ in $(seq 1 400); do
    [ "$(stat_of 'j.byOp.UploadPart - j.partsAnswered')" = 0 ] && break
    sleep 0.05
done
# On a loaded machine a checkpoint may still come after the part (the case is then not met): its
# checks are skipped, and the upload it names, rightly left open, is aborted here.
named_met=1
if grep -q '"s3":"[^-]' "$tmp/named.state"; then
    echo "note: a checkpoint named the upload before the stop; the case was not met" >&2
    named_met=0
else
    rm "$tmp/named.state" && mkdir -p "$tmp/named.state/in-the-way"
fi
kill -INT "$pid"
stopped "$pid"
st_named=$?
exec {feed}>&-
[ "$st_named" = 130 ] || fail "named: exit status $st_named"
if [ "$named_met" = 1 ]; then
    grep -q "cannot save the checkpoint" "$tmp/named.err" || fail "named: the failed save not said"
    ! uploads | grep -q '"key":"named/' ||
        fail "named: an upload no saved checkpoint names was left open: $(uploads)"
else
    for id in $(grep -o '"s3":"[^ "]*' "$tmp/named.state" | cut -d'"' -f4 | grep -v '^-$'); do
        awss3 s3api abort-multipart-upload --bucket data --key named/FavoriteData.csv \
            --upload-id "$id" || fail "named: abort the upload the saved state names"
    done
fi

# -- killed under --state: nothing visible, --resume completes it (the rejects kept so far too) ----
st="$tmp/out.state"
printf '{"Item":{"pk":{"N":"not a number"}}}\n' >"$tmp/bad-only.json"
"$bin" export "$tmp/bad-only.json" "$export_dir/$full" --out s3://data/res/ --format ddb-json \
    --state "$st" --checkpoint-interval 0 >"$tmp/kill.out" 2>"$tmp/kill.err" &
pid=$!
for _ in $(seq 1 500); do
    grep -q '"s3":"[^ "]* 1:' "$st" 2>/dev/null && break
    sleep 0.01
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -z "$(awss3 s3 ls s3://data/res/)" ] || fail "killed run: something became visible"
[ "$(uploads)" != "[]" ] || fail "killed run: its upload should stay open for the resume"
grep -q '"rejects_bytes":[1-9]' "$st" || fail "killed run: the reject was not checkpointed"
run resume 1 "$bin" export "$tmp/bad-only.json" "$export_dir/$full" --out s3://data/res/ \
    --format ddb-json --state "$st" --checkpoint-interval 0 --resume
awss3 s3 cp --quiet s3://data/res/items.json "$tmp/res.json" || fail "resumed output"
cmp -s "$tmp/res.json" "$tmp/outl/items.json" || fail "resumed multipart output differs"
awss3 s3 cp --quiet s3://data/res/_ddbpipe/rejects.ndjson "$tmp/res-rej.ndjson" || fail "resumed rejects"
[ "$(grep -c '"line":1,.*not a number' "$tmp/res-rej.ndjson")" = 1 ] ||
    fail "resumed rejects: the line before the kill, once: $(cat "$tmp/res-rej.ndjson")"
[ "$(uploads)" = "[]" ] || fail "resumed run: uploads left open: $(uploads)"

# -- a bucket in another region: 301 followed; wrong keys refused -----------------------------------
printf '{"Item":{"pk":{"S":"eu"}}}\n' >"$tmp/eu.json"
awss3 --region eu-west-1 s3 cp --quiet "$tmp/eu.json" s3://euro/eu.json ||
    fail "upload to the eu-west-1 bucket"
run region 0 "$bin" export s3://euro/eu.json --out "$tmp/euro"
grep -q '"pk":"eu"' "$tmp/euro/items.ndjson" || fail "region: the object read"
grep -q 'PermanentRedirect' <(curl -s "$s3/__stats") || fail "region: no redirect was exercised"
run badkey 3 env AWS_SECRET_ACCESS_KEY=wrong "$bin" export "s3://data/exports/AWSDynamoDB/$full/" \
    --out "$tmp/bad"
grep -q 'SignatureDoesNotMatch' "$tmp/badkey.err" || fail "wrong secret: SignatureDoesNotMatch said"

# -- Parquet into a bucket: the object reads back exactly (DuckDB and hyparquet), and as an input
# (copied to a temporary file first: its footer, at the end, is read first) gives the items -----
pqfx="$root/tests/scripts/parquet"
run pq-s3 0 "$bin" export "$pqfx/items.json" --mapping "$pqfx/mapping.json" --format parquet \
    --out s3://data/pq --quiet
run pq-nd 0 "$bin" export "$pqfx/items.json" --mapping "$pqfx/mapping.json" --format ndjson \
    --out "$tmp/pq-nd" --quiet
mkdir -p "$tmp/pq-got"
awss3 s3 cp --quiet s3://data/pq/Thing.parquet "$tmp/pq-got/Thing.parquet" ||
    fail "Parquet: the object is not there"
node "$root/tests/scripts/parquet-check.mjs" "$tmp/pq-nd" "$tmp/pq-got" "$pqfx/mapping.json" \
    >"$tmp/pq-check" 2>&1 || { fail "Parquet from S3 differs"; cat "$tmp/pq-check" >&2; }
run pq-s3-in 0 "$bin" encode s3://data/pq/Thing.parquet --mapping "$pqfx/mapping.json" \
    --out "$tmp/pq-back" --quiet
same_items pq-s3-in "$pqfx/items.json" -- "$tmp/pq-back/Thing.json"

finish
