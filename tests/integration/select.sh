#!/usr/bin/env bash
# Only the data asked for, from a table (dynalite): a --where that fixes an entity's partition key
# is one Query (of the index whose key it fixes best, narrowed on the sort key) and no Scan; one
# that fixes no key is a Scan with a FilterExpression; both give exactly the records a full
# export filtered here gives, and count the rest as filtered.
. "$(dirname "$0")/lib.bash"
E=(--endpoint-url "$endpoint")
M=(--mapping "$root/formats/favorites.json")

run create 0 "$bin" create-table "${M[@]}" --table fav "${E[@]}"
run import 0 "$bin" import "$root/samples/favorites/export" --table fav "${M[@]}" "${E[@]}" \
    --rejects "$tmp/import.rejects.ndjson" \
    --max-rejects 100
run all 0 "$bin" export --table fav "${M[@]}" --format ndjson --out "$tmp/all" "${E[@]}"

# want NAME ENTITY JS-CONDITION [FIELDS]: the records of ENTITY in the full export that the
# condition (on r, the record) keeps (only FIELDS of them, when given), sorted, in $tmp/NAME.want;
# the run's in $tmp/NAME.got
want() {
    node -e '
        const fs = require("fs"); const [file, cond, fields] = process.argv.slice(1);
        const keep = new Function("r", "return " + cond);
        const only = (r) => !fields ? r : Object.fromEntries(Object.entries(r)
            .filter(([k]) => fields.split(",").includes(k)));
        const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map(JSON.parse);
        console.log(lines.filter(keep).map((r) => JSON.stringify(only(r))).sort().join("\n"));
    ' "$tmp/all/$2.ndjson" "$3" "${4:-}" >"$tmp/$1.want"
    sort "$tmp/$1/$2.ndjson" | sed '/^$/d' >"$tmp/$1.got"
    [ -s "$tmp/$1.want" ] || fail "$1: the full export has no such record (a test that cannot fail)"
    cmp -s "$tmp/$1.want" "$tmp/$1.got" ||
        fail "$1: records differ ($(wc -l <"$tmp/$1.want") wanted, $(wc -l <"$tmp/$1.got") got)"
}
# requests NAME: the operations the run sent, one per line, from its --verbose log
requests() { grep -o 'POST [A-Za-z]*\|"[A-Z][a-zA-Z]*" attempt\|DynamoDB_20120810\.[A-Za-z]*' "$tmp/$1.err" | sort | uniq -c; }

user=$(node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").split("\n").filter(Boolean).map(JSON.parse);
    const n={}; for (const r of l) if (r.dataType==="IMAGE") n[r.userId]=(n[r.userId]||0)+1;
    console.log(Object.keys(n).sort((a,b)=>n[b]-n[a])[0])' "$tmp/all/FavoriteData.ndjson")

# one user's images: the favorites mapping's gsiOne key is FavoriteData#{userId}#{dataType}
run query-gsi 0 "$bin" export --table fav "${M[@]}" --format ndjson --out "$tmp/query-gsi" "${E[@]}" \
    --entities FavoriteData --where "userId=$user,dataType=IMAGE" --verbose \
    --summary "$tmp/query-gsi.json"
want query-gsi FavoriteData "r.userId === '$user' && r.dataType === 'IMAGE'"
# (the mapping spells IMAGE "image" in keys: its enum gives key spellings)
expect_in "$tmp/query-gsi.err" "selection: Query of index gsiOne: gsiOnePk = FavoriteData#$user#image"
grep -q 'Scan' "$tmp/query-gsi.err" && fail "query-gsi: a Scan was sent: $(requests query-gsi)"
expect_in "$tmp/query-gsi.json" '"selection":"Query of index gsiOne'
[ -e "$tmp/query-gsi/Tag.ndjson" ] && fail "query-gsi: a file for an entity not asked for"

# the table's own key, narrowed on the sort key: a user's tags whose tagId begins with a prefix
tag=$(head -1 "$tmp/all/Tag.ndjson" | node -e 'const r=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log(r.userId+" "+r.tagId.slice(0,2))')
tuser=${tag% *} tpre=${tag#* }
run query-table 0 "$bin" export --table fav "${M[@]}" --format ndjson --out "$tmp/query-table" "${E[@]}" \
    --entities Tag --where "userId=$tuser,tagId^=$tpre" --verbose
want query-table Tag "r.userId === '$tuser' && r.tagId.startsWith('$tpre')"
expect_in "$tmp/query-table.err" "selection: Query of the table: pk = Tag#$tuser, sk begins_with $tpre"
grep -q 'Scan' "$tmp/query-table.err" && fail "query-table: a Scan was sent"

# only some fields: a ProjectionExpression of theirs and of what tells the entity
run project 0 "$bin" export --table fav "${M[@]}" --format ndjson --out "$tmp/project" "${E[@]}" \
    --entities FavoriteData --where "userId=$user,dataType=IMAGE" --project title,clipTime --verbose
want project FavoriteData "r.userId === '$user' && r.dataType === 'IMAGE'" title,clipTime
expect_in "$tmp/project.err" "ProjectionExpression pk, sk, title, clipTime, gsiOneSk, gsiOnePk, dataType"
grep -q 'Scan' "$tmp/project.err" && fail "project: a Scan was sent"

# no key fixed: a Scan with a filter, the records filtered again as read
run scan 0 "$bin" export --table fav "${M[@]}" --format ndjson --out "$tmp/scan" "${E[@]}" \
    --entities FavoriteData --where "title^=W,clipTime>=1650000000000" --verbose \
    --summary "$tmp/scan.json"
want scan FavoriteData "typeof r.title === 'string' && r.title.startsWith('W') && r.clipTime >= '1650000000000'"
expect_in "$tmp/scan.err" "selection: Scan with FilterExpression begins_with(title, 'W') AND (begins_with(pk, 'FavoriteData#'))"
grep -q '"Query"\|Query of' "$tmp/scan.err" && fail "scan: a Query was sent"
[ "$(summary_total "$tmp/scan.json" filtered)" -gt 0 ] || fail "scan: nothing counted as filtered"

# the first 3 records asked for: the Scan stops there (its pages in flight are dropped)
run sample 0 "$bin" export --table fav "${M[@]}" --format ndjson --out "$tmp/sample" "${E[@]}" \
    --entities FavoriteDataTag --sample 3 --segments 1 --page-size 5 --summary "$tmp/sample.json"
[ "$(cat "$tmp/sample/FavoriteDataTag.ndjson" | wc -l)" = 3 ] || fail "sample: not 3 records"
[ "$(summary_total "$tmp/sample.json" written)" = 3 ] || fail "sample: not 3 written"
[ "$(summary_total "$tmp/sample.json" read)" -lt "$(cat "$tmp"/all/*.ndjson | wc -l)" ] ||
    fail "sample: the whole table was read"
expect_in "$tmp/query-gsi.err" "query of fav: 1 pages"

[ "$failures" = 0 ] && echo "select: ok"
exit $((failures > 0))
