#!/usr/bin/env bash
# The shapes of Parquet files beyond one column per field (tests/scripts/parquet.sh covers those):
# a map whose members the mapping declares is a STRUCT, read back by DuckDB and hyparquet
# (through parquet-check.mjs) as exactly the records NDJSON gives, and by ddbpipe as exactly the
# items it came from.
. "$(dirname "$0")/lib.bash"
fixture="$root/tests/scripts/parquet"
check_same() { # NAME NDJSON_DIR PARQUET_DIR MAPPING|-
    node "$root/tests/scripts/parquet-check.mjs" "$2" "$3" "$4" >"$tmp/$1.check" 2>&1 ||
        { fail "$1: Parquet differs from NDJSON"; cat "$tmp/$1.check" >&2; }
}
same() { node "$root/tests/seeds/same-items.js" "$@" >"$tmp/same.out" 2>&1 || { fail "items differ: $*"; tail -5 "$tmp/same.out" >&2; }; }
duck() { # OUT SQL...: each query's rows as JSON lines
    local out=$1
    shift
    node "$root/tests/scripts/duck-rows.js" "$@" >"$out" 2>&1 ||
        { fail "DuckDB: $*"; cat "$out" >&2; }
}

# ---- STRUCT: every kind of member; a missing map, an empty one, a missing member, and maps
# not as declared (an undeclared member, a member of another type, a number its DECIMAL(3,1)
# cannot hold, NULL) under _extra whole
for fmt in ndjson parquet; do
    check "struct-$fmt" 0 "$bin" export "$fixture/struct-items.json" \
        --mapping "$fixture/struct-mapping.json" --format "$fmt" --out "$tmp/struct/$fmt" --quiet
done
check_same struct "$tmp/struct/ndjson" "$tmp/struct/parquet" "$fixture/struct-mapping.json"
f="$tmp/struct/parquet/Card.parquet"
duck "$tmp/struct.duck" "SELECT column_type t FROM (DESCRIBE SELECT info FROM read_parquet('$f'))" \
    "SELECT id, info IS NULL AS absent, CAST(info.rating AS VARCHAR) AS rating, info.genres AS g,
        json_keys(_extra) AS extra FROM read_parquet('$f') ORDER BY id"
for want in \
    '{"t":"STRUCT(rating DECIMAL(3,1), count DECIMAL(38,1), genres VARCHAR[], scores DECIMAL(38,2)[], thumb BLOB, seen BOOLEAN, extra JSON, steps JSON, \"Odd Name\" VARCHAR)"}' \
    '{"id":"1","absent":false,"rating":"7.5","g":["a","b\u0000c"],"extra":null}' \
    '{"id":"2","absent":true,"rating":null,"g":null,"extra":null}' \
    '{"id":"3","absent":false,"rating":null,"g":null,"extra":null}' \
    '{"id":"4","absent":false,"rating":"-9.9","g":null,"extra":null}' \
    '{"id":"5","absent":true,"rating":null,"g":null,"extra":["info"]}' \
    '{"id":"6","absent":true,"rating":null,"g":null,"extra":["info"]}' \
    '{"id":"7","absent":true,"rating":null,"g":null,"extra":["info"]}' \
    '{"id":"8","absent":true,"rating":null,"g":null,"extra":["info","other"]}' \
    '{"id":"9","absent":false,"rating":null,"g":["x"],"extra":null}'; do
    grep -qxF -- "$want" "$tmp/struct.duck" || fail "DuckDB: no '$want' in: $(cat "$tmp/struct.duck")"
done
# the definition levels as written: 0 no map, 1 a map without the member, 2 the member
duck "$tmp/levels.duck" "SELECT path_in_schema p, num_values n, stats_null_count z
    FROM parquet_metadata('$f') WHERE path_in_schema IN ('info, rating', 'info, genres, list, element')"
expect_in "$tmp/levels.duck" '{"p":"info, rating","n":"9","z":"7"}'
# ddbpipe reads the STRUCT back: exactly the items, whichever way they were written
check struct-encode 0 "$bin" encode "$f" --mapping "$fixture/struct-mapping.json" \
    --out "$tmp/struct-back" --quiet
same "$fixture/struct-items.json" -- "$tmp/struct-back/Card.json"
# the schema sidecar says the STRUCT, for DuckDB and Athena
expect_in "$tmp/struct/parquet/_ddbpipe/schema/Card.athena.sql" \
    '  `info` struct<rating:decimal(3,1),count:decimal(38,1),genres:array<string>,scores:array<decimal(38,2)>,thumb:binary,seen:boolean,extra:string,steps:string,`Odd Name`:string>,'
expect_in "$tmp/struct/parquet/_ddbpipe/schema/Card.json" \
    '"duckdb":"STRUCT(rating DECIMAL(3,1), count DECIMAL(38,1), genres VARCHAR[], scores DECIMAL(38,2)[], thumb BLOB, seen BOOLEAN, extra JSON, steps JSON, \"Odd Name\" VARCHAR)"'
node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' \
    "$tmp/struct/parquet/_ddbpipe/schema/Card.json" || fail "Card.json is not JSON"
# Hive partitions: every file's members share their number types (one file per id here), and
# the DDL says what DuckDB reads from the folder
check struct-part 0 "$bin" export "$fixture/struct-items.json" --mapping "$fixture/struct-mapping.json" \
    --format parquet --partition-by id --out "$tmp/struct-part" --quiet
duck "$tmp/struct-part.duck" "SELECT DISTINCT column_type t FROM (DESCRIBE SELECT info FROM read_parquet('$tmp/struct-part/Card/**/*.parquet', hive_partitioning = true))"
expect_in "$tmp/struct-part.duck" 'count DECIMAL(38,1), genres VARCHAR[], scores DECIMAL(38,2)[]'
expect_in "$tmp/struct-part/_ddbpipe/schema/Card.athena.sql" 'count:decimal(38,1),genres:array<string>,scores:array<decimal(38,2)>'
# the checker sees a member changed
sed 's/"rating":-9.9/"rating":-9.8/' "$tmp/struct/ndjson/Card.ndjson" >"$tmp/Card.ndjson"
grep -q '"rating":-9.8' "$tmp/Card.ndjson" || fail "the member to change is not there"
mkdir -p "$tmp/changed" && mv "$tmp/Card.ndjson" "$tmp/changed/"
node "$root/tests/scripts/parquet-check.mjs" "$tmp/changed" "$tmp/struct/parquet" \
    "$fixture/struct-mapping.json" >/dev/null 2>&1 && fail "the checker missed a changed member"

# movies, its ratings declared (a test mapping: the shipped one keeps its JSON column); the
# sample export has a rating with a member no declaration names (under _extra)
movies="$fixture/movies-struct.json"
for fmt in ndjson parquet; do
    check "movies-$fmt" 0 "$bin" export "$root/samples/movies/export" --mapping "$movies" \
        --format "$fmt" --out "$tmp/movies/$fmt" --max-rejects 100 --quiet
done
check_same movies "$tmp/movies/ndjson" "$tmp/movies/parquet" "$movies"
node "$root/tests/seeds/seed-writers.js" movies 300 7 >"$tmp/movies.json" || fail "movies: seed writer"
check movies-seed 0 "$bin" export "$tmp/movies.json" --mapping "$movies" --format parquet \
    --row-group-rows 50 --out "$tmp/movies-seed" --quiet
check movies-seed-nd 0 "$bin" export "$tmp/movies.json" --mapping "$movies" --format ndjson \
    --out "$tmp/movies-seed-nd" --quiet
check_same movies-seed "$tmp/movies-seed-nd" "$tmp/movies-seed" "$movies"
check movies-encode 0 "$bin" encode "$tmp/movies-seed"/[A-Z]*.parquet --mapping "$movies" \
    --out "$tmp/movies-back" --quiet
same "$tmp/movies.json" -- "$tmp/movies-back"/*.json
# Hive partitions share the members' number types too
check movies-part 0 "$bin" export "$tmp/movies.json" --mapping "$movies" --format parquet \
    --partition-by releaseYear --out "$tmp/movies-part" --quiet
node "$root/tests/scripts/parquet-check.mjs" "$tmp/movies-seed-nd" "$tmp/movies-part" "$movies" \
    --partition releaseYear >"$tmp/part.check" 2>&1 || { fail "partitioned STRUCT"; cat "$tmp/part.check" >&2; }

# ---- without a mapping: the key attributes a column each (--key, typed by the first item: N a
# DECIMAL, B a BLOB), then the item whole; an item without a key, or with one of another type,
# leaves its column null (the item holds it); read back as exactly the items
node - >"$tmp/keyed.json" <<'JS'
for (let i = 0; i < 40; i++) {
  const it = { id: { N: String(i * 1000 + 0.5) }, tag: { B: Buffer.from([i, 0, 255]).toString('base64') },
    v: { S: `v${i}` } }
  if (i === 7) delete it.tag
  if (i === 9) it.tag = { S: 'text, not bytes' }
  if (i === 11) it.id = { S: 'eleven' }
  console.log(JSON.stringify({ Item: it }))
}
JS
check keyed-nd 0 "$bin" export "$tmp/keyed.json" --format ndjson --out "$tmp/keyed/nd" --quiet
check keyed-pq 0 "$bin" export "$tmp/keyed.json" --format parquet --key id,tag \
    --row-group-rows 8 --out "$tmp/keyed/pq" --quiet
check_same keyed "$tmp/keyed/nd" "$tmp/keyed/pq" -
f="$tmp/keyed/pq/items.parquet"
duck "$tmp/keyed.duck" "SELECT column_name || ':' || column_type AS c FROM (DESCRIBE SELECT * FROM read_parquet('$f'))" \
    "SELECT CAST(sum(id) AS VARCHAR) s, count(id) n, count(tag) t FROM read_parquet('$f')"
for want in '{"c":"id:DECIMAL(38,1)"}' '{"c":"tag:BLOB"}' '{"c":"item:JSON"}' '{"s":"769019.5","n":"39","t":"38"}'; do
    grep -qxF -- "$want" "$tmp/keyed.duck" || fail "DuckDB: no '$want' in: $(cat "$tmp/keyed.duck")"
done
check keyed-back 0 "$bin" export "$f" --format ddb-json --out "$tmp/keyed/back" --quiet
same "$tmp/keyed.json" -- "$tmp/keyed/back/items.json"
# a key number its DECIMAL (chosen by the first row group) cannot hold: the item is rejected
# with the reason, never rounded
printf '%s\n' '{"Item":{"id":{"N":"1"}}}' '{"Item":{"id":{"N":"2.5"}}}' >"$tmp/keyed-scale.json"
check keyed-scale 1 "$bin" export "$tmp/keyed-scale.json" --format parquet --key id \
    --row-group-rows 1 --out "$tmp/keyed-scale" --quiet
expect_in "$tmp/keyed-scale/_ddbpipe/rejects.ndjson" 'id: 2.5 has 1 digits after the point; the column is DECIMAL(38,0)'
# without a table or --key there is no key to give a column: said, and the item column alone
check unkeyed 0 "$bin" export "$tmp/keyed.json" --format parquet --out "$tmp/unkeyed"
expect_in "$tmp/stderr" "no key attributes are known (no table read, no --key): items.parquet has the item column only"
check_same unkeyed "$tmp/keyed/nd" "$tmp/unkeyed" -
check key-ndjson 2 "$bin" export "$tmp/keyed.json" --format ndjson --key id --out "$tmp/kx"
expect_in "$tmp/stderr" "it is for --format parquet without --mapping"
check key-mapping 2 "$bin" export "$fixture/struct-items.json" --mapping "$fixture/struct-mapping.json" \
    --format parquet --key pk --out "$tmp/kx"
expect_in "$tmp/stderr" "it is for --format parquet without --mapping"
check key-three 2 "$bin" export "$tmp/keyed.json" --format parquet --key id,tag,v --out "$tmp/kx"
expect_in "$tmp/stderr" "--key names at most two attributes"

# ---- convert and encode write items: as Parquet, a file per entity of the key columns of the
# table the items are encoded for (favorites-v2: PK, SK), then the item; read back (and checked
# column by column against NDJSON by both readers) they are the items DynamoDB JSON gives
fav="$root/formats/favorites.json" fav2="$root/formats/favorites-v2.json"
for fmt in ddb-json parquet; do
    check "convert-$fmt" 0 "$bin" convert "$root/samples/favorites/export" --mapping "$fav" \
        --to-mapping "$fav2" --format "$fmt" --out "$tmp/convert/$fmt" --max-rejects 100 --quiet
done
mkdir -p "$tmp/convert/nd"
for f in "$tmp/convert/ddb-json"/[A-Z]*.json; do
    e=$(basename "$f" .json)
    check "convert-back-$e" 0 "$bin" export "$tmp/convert/parquet/$e.parquet" --format ddb-json \
        --out "$tmp/convert/back-$e" --quiet
    same "$f" -- "$tmp/convert/back-$e/items.json"
    check "convert-nd-$e" 0 "$bin" export "$f" --format ndjson --out "$tmp/convert/nd-$e" --quiet
    mv "$tmp/convert/nd-$e/items.ndjson" "$tmp/convert/nd/$e.ndjson"
done
check_same convert "$tmp/convert/nd" "$tmp/convert/parquet" -
duck "$tmp/convert.duck" "SELECT string_agg(column_name || ':' || column_type, ' ') c FROM (DESCRIBE SELECT * FROM read_parquet('$tmp/convert/parquet/FavoriteData.parquet'))"
expect_in "$tmp/convert.duck" '{"c":"PK:VARCHAR SK:VARCHAR item:JSON"}'
check encode-parquet 0 "$bin" encode "$tmp/struct/ndjson/Card.ndjson" \
    --mapping "$fixture/struct-mapping.json" --format parquet --out "$tmp/encode-pq" --quiet
check encode-back 0 "$bin" export "$tmp/encode-pq/Card.parquet" --format ddb-json \
    --out "$tmp/encode-back" --quiet
check encode-json 0 "$bin" encode "$tmp/struct/ndjson/Card.ndjson" \
    --mapping "$fixture/struct-mapping.json" --out "$tmp/encode-json" --quiet
same "$tmp/encode-json/Card.json" -- "$tmp/encode-back/items.json"
# --key names other key columns; what Parquet cannot be is refused
check convert-keyed 0 "$bin" convert "$root/samples/favorites/export" --mapping "$fav" \
    --to-mapping "$fav2" --format parquet --key PK --out "$tmp/convert-keyed" --max-rejects 100 --quiet
duck "$tmp/convert-keyed.duck" "SELECT string_agg(column_name || ':' || column_type, ' ') c FROM (DESCRIBE SELECT * FROM read_parquet('$tmp/convert-keyed/Tag.parquet'))"
expect_in "$tmp/convert-keyed.duck" '{"c":"PK:VARCHAR item:JSON"}'
check convert-csv 2 "$bin" convert "$root/samples/favorites/export" --mapping "$fav" \
    --to-mapping "$fav2" --format csv --out "$tmp/cx"
expect_in "$tmp/stderr" "items are written as DynamoDB JSON (the Import from S3 form) or Parquet (--format parquet), not csv"
check convert-stdout 2 "$bin" convert "$root/samples/favorites/export" --mapping "$fav" \
    --to-mapping "$fav2" --format parquet --out -
check generate-stdout 2 "$bin" generate --mapping "$root/formats/movies.json" --count 5 \
    --format parquet --out -
expect_in "$tmp/stderr" "standard output takes the items as DynamoDB JSON lines: no other format"

# ---- Parquet from standard input (a pipe): copied to a temporary file in TMPDIR first (the
# footer is at the end), gone afterwards whatever the outcome
mkdir -p "$tmp/spool"
run stdin-encode 0 env TMPDIR="$tmp/spool" sh -c "cat '$tmp/struct/parquet/Card.parquet' | \"\$0\" encode - \
    --entity Card --mapping '$fixture/struct-mapping.json' --out '$tmp/stdin-back' --quiet" "$bin"
same "$fixture/struct-items.json" -- "$tmp/stdin-back/Card.json"
run stdin-items 0 env TMPDIR="$tmp/spool" sh -c "cat '$tmp/keyed/pq/items.parquet' | \"\$0\" export - \
    --format ddb-json --out '$tmp/stdin-items' --quiet" "$bin"
same "$tmp/keyed.json" -- "$tmp/stdin-items/items.json"
run stdin-cut 3 env TMPDIR="$tmp/spool" sh -c "head -c 3000 '$tmp/keyed/pq/items.parquet' | \"\$0\" export - \
    --input-format parquet --format ddb-json --out '$tmp/stdin-cut' --quiet" "$bin"
expect_in "$tmp/stderr" "-: not read: no Parquet footer at its end (cut short, or encrypted)"
[ -z "$(ls -A "$tmp/spool")" ] || fail "temporary files left behind: $(ls "$tmp/spool")"
run stdin-nowhere 3 env TMPDIR="$tmp/spool/none" sh -c "\"\$0\" export - --input-format parquet \
    --format ddb-json --out '$tmp/stdin-x' --quiet <'$tmp/keyed/pq/items.parquet'" "$bin"
expect_in "$tmp/stderr" "-: cannot make a temporary file in $tmp/spool/none for it"

# ---- NDJSON and CSV: a field's declared DECIMAL is its type in the schema sidecar, the Athena
# DDL and the DuckDB load script, whatever the values (price's 123.45, -999.99 and 0.5 alone
# would say DECIMAL(38,2)): DECIMAL(5,2), a whole 18-digit qty BIGINT, ratio DECIMAL(30,10); the
# load script gives those columns, with the values exact
for fmt in ndjson csv; do
    check "declared-$fmt" 0 "$bin" export "$fixture/declared.json" --mapping "$fixture/mapping.json" \
        --format "$fmt" --out "$tmp/declared-$fmt" --max-rejects 10 --quiet
    sch="$tmp/declared-$fmt/_ddbpipe/schema"
    for want in '  `price` decimal(5,2),' '  `qty` bigint,' '  `ratio` decimal(30,10),'; do
        expect_in "$sch/Thing.athena.sql" "$want"
    done
    for want in '{"name":"price","dynamodb":"N","duckdb":"DECIMAL(5,2)","athena":"decimal(5,2)"}' \
        '{"name":"qty","dynamodb":"N","duckdb":"BIGINT","athena":"bigint"}' \
        '{"name":"ratio","dynamodb":"N","duckdb":"DECIMAL(30,10)","athena":"decimal(30,10)"}'; do
        expect_in "$sch/Thing.json" "$want"
    done
    (cd "$tmp/declared-$fmt" && duck "$tmp/declared-$fmt.duck" "$(cat _ddbpipe/schema/load.duckdb.sql)
        SELECT string_agg(column_name || ':' || column_type, ' ') c FROM (DESCRIBE SELECT price, qty, ratio FROM \"Thing\")" \
        "SELECT CAST(sum(price) AS VARCHAR) p, CAST(sum(qty) AS VARCHAR) q, CAST(sum(ratio) AS VARCHAR) r FROM \"Thing\"")
    expect_in "$tmp/declared-$fmt.duck" '{"c":"price:DECIMAL(5,2) qty:BIGINT ratio:DECIMAL(30,10)"}'
    expect_in "$tmp/declared-$fmt.duck" '{"p":"-876.04","q":"0","r":"-87654321098765432109.8765432107"}'
done

exit $((failures > 0))
