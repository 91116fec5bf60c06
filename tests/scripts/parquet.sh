#!/usr/bin/env bash
# export --format parquet, read back by two independent readers (DuckDB and hyparquet, through
# parquet-check.mjs) and compared record by record with the NDJSON export of the same input:
# every seed mapping's sample export and seed-writer items, the real AWS export (no mapping), and
# tests/scripts/parquet/ (38-digit integers and fractions, numbers no DECIMAL holds, bytes, text
# with NUL bytes and newlines, sets, maps, lists, undeclared attributes), in each codec. Then
# Parquet as input: those files encode (or export) back to exactly the items they came from, diff
# finds them equal, and what the reader does not read (DuckDB's dictionary pages) is refused
# with the reason (standard input and s3://: parquet_shape.sh, integration/parquet_io.sh).
. "$(dirname "$0")/lib.bash"
shared="$root/../shared/testdata"
check_same() { # NAME NDJSON_DIR PARQUET_DIR MAPPING|- [CHECKER_OPTIONS...]
    node "$root/tests/scripts/parquet-check.mjs" "$2" "$3" "${@:4}" >"$tmp/$1.check" 2>&1 ||
        { fail "$1: Parquet differs from NDJSON"; cat "$tmp/$1.check" >&2; }
}
export_both() { # NAME MAPPING|- PARQUET_OPTIONS... -- INPUTS...
    local name=$1 mapping=$2 popts=() m=()
    shift 2
    while [ "$1" != "--" ]; do popts+=("$1"); shift; done
    shift
    [ "$mapping" = - ] || m=(--mapping "$mapping")
    check "$name-ndjson" 0 "$bin" export "$@" "${m[@]}" --format ndjson --out "$tmp/$name/nd" \
        --max-rejects 100 --quiet
    check "$name-parquet" 0 "$bin" export "$@" "${m[@]}" --format parquet "${popts[@]}" \
        --out "$tmp/$name/pq" --max-rejects 100 --quiet
    check_same "$name" "$tmp/$name/nd" "$tmp/$name/pq" "$mapping"
}

encodings() { # FILE COLUMN... : "column encodings dict|none codec" per column chunk (DuckDB)
    ROOT="$root" node - "$@" <<'EOF'
const { DuckDBInstance } = require(process.env.ROOT + '/node_modules/@duckdb/node-api');
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const [f, ...cols] = process.argv.slice(2);
  for (const r of (await c.runAndReadAll(`SELECT path_in_schema p, encodings e, compression z,
      dictionary_page_offset d FROM parquet_metadata('${f}')`)).getRowObjectsJson())
    if (cols.includes(r.p)) console.log(`${r.p} ${r.e} ${r.d === null ? 'none' : 'dict'} ${r.z}`);
})().catch(e => { console.error(e); process.exit(1); });
EOF
}

# the shipped designs: their sample exports and what the seeds' own code writes
for pair in favorites:favorites facility:facility-capacity movies:movies; do
    design=${pair%%:*} sample=${pair#*:} mapping="$root/formats/${pair#*:}.json"
    export_both "$design-sample" "$mapping" -- "$root/samples/$sample/export"
    node "$root/tests/seeds/seed-writers.js" "$design" 300 7 >"$tmp/$design.json" ||
        fail "$design: seed writer"
    export_both "$design-seed" "$mapping" --compression gzip -- "$tmp/$design.json"
done

# dictionary encoding where it pays, as DuckDB's parquet_metadata() reports each column chunk's
# encodings: a column of few values (dataType, an enum; money, two decimals in a 16-byte
# FIXED_LEN_BYTE_ARRAY) has a dictionary page and RLE_DICTIONARY indices, a column of a value per
# row (dataId, big) stays PLAIN; and both readers read them back the same (check_same above)
encodings "$tmp/favorites-seed/pq/FavoriteData.parquet" dataType dataId >"$tmp/enc.out" 2>&1 ||
    fail "DuckDB: parquet_metadata"
grep -qx 'dataType PLAIN, RLE, RLE_DICTIONARY dict GZIP' "$tmp/enc.out" &&
    grep -qx 'dataId PLAIN, RLE none GZIP' "$tmp/enc.out" ||
    fail "dictionary: dataType not dictionary-encoded or dataId not PLAIN: $(cat "$tmp/enc.out")"

# generate writes Parquet too
check gen-ndjson 0 "$bin" generate --mapping "$root/formats/movies.json" --count 60 \
    --format ndjson --out "$tmp/gen/nd" --quiet
check gen-parquet 0 "$bin" generate --mapping "$root/formats/movies.json" --count 60 \
    --format parquet --out "$tmp/gen/pq" --quiet
check_same gen "$tmp/gen/nd" "$tmp/gen/pq" "$root/formats/movies.json"

# the real AWS export (one of its four data files, to stay fast), no mapping: one "item"
# column of DynamoDB JSON per item
export_both aws - --compression gzip -- \
    "$shared/aws-export/01716790307109-5f9d6aaa/data/6w7gruvaie6wbf3wtvh4vdniiy.json.gz"

# every kind of column, in each codec; the same rows whatever the codec
fixture="$root/tests/scripts/parquet"
for codec in zstd snappy gzip none; do
    export_both "exact-$codec" "$fixture/mapping.json" --compression "$codec" -- "$fixture/items.json"
done
cmp -s "$tmp/exact-zstd/pq/Thing.parquet" "$tmp/exact-none/pq/Thing.parquet" &&
    fail "zstd and none wrote the same bytes: nothing was compressed"
# a SNAPPY export of a real table (the favorites seed), read by both readers, and back by ddbpipe
export_both favorites-snappy "$root/formats/favorites.json" --compression snappy -- "$tmp/favorites.json"
encodings "$tmp/favorites-snappy/pq/FavoriteData.parquet" dataType >"$tmp/enc.out" 2>&1
expect_in "$tmp/enc.out" "dataType PLAIN, RLE, RLE_DICTIONARY dict SNAPPY"
check snappy-encode 0 "$bin" encode "$tmp/favorites-snappy/pq"/[A-Z]*.parquet \
    --mapping "$root/formats/favorites.json" --out "$tmp/favorites-snappy-back" --quiet
node "$root/tests/seeds/same-items.js" "$tmp/favorites.json" -- "$tmp/favorites-snappy-back"/*.json \
    >"$tmp/same.out" 2>&1 || { fail "snappy: items differ"; tail -5 "$tmp/same.out" >&2; }

# many row groups (of 7 rows): the same records
export_both movies-groups "$root/formats/movies.json" --row-group-rows 7 -- \
    "$root/samples/movies/export"

# a number the DECIMAL chosen by the first row group cannot hold is rejected with its reason,
# never rounded: row 1 makes nums DECIMAL(38,1), row 2 holds a 38-digit integer
check groups-of-one 0 "$bin" export "$fixture/items.json" --mapping "$fixture/mapping.json" \
    --format parquet --row-group-rows 1 --out "$tmp/one" --max-rejects 5 --quiet
expect_in "$tmp/one/_ddbpipe/rejects.ndjson" \
    '"line":2,"offset":598,"entity":"Thing","reason":"nums: 12345678901234567890123456789012345678 has 38 digits before the point; the column is DECIMAL(38,1)'
expect_in "$tmp/stderr" "4 read, 3 written, 1 rejected"

# the checker sees a difference in the 38th digit
sed 's/99999999999999999999999999999999999999/99999999999999999999999999999999999998/' \
    "$tmp/exact-zstd/nd/Thing.ndjson" >"$tmp/Thing.ndjson"
mkdir -p "$tmp/changed" && mv "$tmp/Thing.ndjson" "$tmp/changed/"
node "$root/tests/scripts/parquet-check.mjs" "$tmp/changed" "$tmp/exact-zstd/pq" \
    "$fixture/mapping.json" >/dev/null 2>&1 && fail "the checker missed a changed 38th digit"

# typed columns, and sums over 38 digits exact in DuckDB
ROOT="$root" node - "$tmp/exact-zstd/pq/Thing.parquet" >"$tmp/duck.out" 2>&1 <<'EOF' || { fail "DuckDB sums"; cat "$tmp/duck.out" >&2; }
const { DuckDBInstance } = require(process.env.ROOT + '/node_modules/@duckdb/node-api');
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const f = process.argv[2];
  const types = (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${f}')`))
    .getRowObjectsJson().map(r => `${r.column_name}:${r.column_type}`).join(' ');
  const sums = (await c.runAndReadAll(`SELECT CAST(sum(big) AS VARCHAR) b, CAST(sum(money) AS VARCHAR) m,
      CAST(max(frac) AS VARCHAR) f FROM read_parquet('${f}')`)).getRowObjectsJson()[0];
  const st = (await c.runAndReadAll(`SELECT stats_min_value mn, stats_max_value mx
      FROM parquet_metadata('${f}') WHERE path_in_schema = 'big'`)).getRowObjectsJson()[0];
  const neg = (await c.runAndReadAll(`SELECT count(*) n FROM read_parquet('${f}') WHERE big < 0`))
    .getRowObjectsJson()[0];
  console.log(types);
  console.log(`${sums.b} ${sums.m} ${sums.f}`);
  console.log(`big from ${st.mn} to ${st.mx}, ${neg.n} below 0`);
})().catch(e => { console.error(e); process.exit(1); });
EOF
for want in "big:DECIMAL(38,0)" "frac:DECIMAL(38,38)" "money:DECIMAL(38,18)" "wide:VARCHAR" \
    "note:VARCHAR" "data:BLOB" "flag:BOOLEAN" "tags:VARCHAR[]" "blobs:BLOB[]" "meta:JSON" \
    "_extra:JSON" \
    "12345678901234567890123456789012345679 -86419753208641975320.364197532086419755 .12345678901234567890123456789012345678" \
    "big from -99999999999999999999999999999999999999 to 99999999999999999999999999999999999999, 1 below 0"; do
    grep -qF -- "$want" "$tmp/duck.out" || fail "DuckDB: no '$want' in: $(cat "$tmp/duck.out")"
done

# --partition-by: Hive folders, read back by DuckDB (hive_partitioning) as exactly the records
# NDJSON gives, the field taken from the folder names. 20 values in turn (more than the 16
# files open at once, so each file is closed and its value comes back in a new part), escaped
# as Hive escapes them; NULL, a missing field and "" in __HIVE_DEFAULT_PARTITION__ (the NULL
# and "" also under _extra, so nothing is lost); numbers whose shapes differ from one folder to
# the next (every file of a folder must hold the same DECIMAL: DuckDB rounds the others)
node - >"$tmp/part.json" <<'EOF'
const vals = ['a/b', 'x=y', '100%', 'new\nline', 'NUL\u0000in', '', null, undefined, 'ü é',
  '#?*:[]^{}\\\'"', 'plain', 'tab\there', '.', '..', 'sp ace', 'del\u007f', 'semi;colon', 'amp&',
  'plus+', 'comma,']
for (let i = 0; i < 60; i++) {
  const v = vals[i % vals.length]
  const it = { pk: { S: `thing#${i}` }, sk: { S: `thing#${i}` }, big: { N: String(i * 7 - 100) },
    money: { N: i % 3 ? '0.5' : '12345678901234567890.123456789012345678' }, flag: { BOOL: i % 2 === 0 } }
  if (v === null) it.note = { NULL: true }
  else if (v !== undefined) it.note = { S: v }
  console.log(JSON.stringify({ Item: it }))
}
EOF
check part-ndjson 0 "$bin" export "$tmp/part.json" --mapping "$fixture/mapping.json" \
    --format ndjson --out "$tmp/part-nd" --quiet
for field in note big flag; do
    check "part-$field" 0 "$bin" export "$tmp/part.json" --mapping "$fixture/mapping.json" \
        --format parquet --partition-by "$field" --out "$tmp/part-$field" --quiet
    check_same "part-$field" "$tmp/part-nd" "$tmp/part-$field" "$fixture/mapping.json" \
        --partition "$field"
done
for dir in 'note=a%2Fb' 'note=x%3Dy' 'note=100%25' 'note=new%0Aline' 'note=NUL%00in' \
    'note=%23%3F%2A%3A%5B%5D%5E%7B}%5C%27%22' 'note=del%7F' 'note=ü é' \
    'note=__HIVE_DEFAULT_PARTITION__' 'big=-100' 'flag=true'; do
    [ -d "$tmp/part-${dir%%=*}/Thing/$dir" ] || fail "partition-by: no folder Thing/$dir"
done
[ -f "$tmp/part-note/Thing/note=plain/part-8.parquet" ] &&
    [ -f "$tmp/part-note/Thing/note=plain/part-26.parquet" ] ||
    fail "partition-by: a value whose file was closed did not get a new part"
# the seeds: an entity without the field (Tag) keeps its one file
check fav-part 0 "$bin" export "$tmp/favorites.json" --mapping "$root/formats/favorites.json" \
    --format parquet --partition-by dataType --out "$tmp/fav-part" --quiet
check_same fav-part "$tmp/favorites-seed/nd" "$tmp/fav-part" "$root/formats/favorites.json" \
    --partition dataType
[ -f "$tmp/fav-part/Tag.parquet" ] || fail "partition-by: Tag, without dataType, not in Tag.parquet"
check part-one-group 0 "$bin" export "$tmp/part.json" --mapping "$fixture/mapping.json" \
    --format parquet --out "$tmp/part-pq" --quiet
check_same part-one-group "$tmp/part-nd" "$tmp/part-pq" "$fixture/mapping.json"
encodings "$tmp/part-pq/Thing.parquet" money big >"$tmp/enc.out" 2>&1 || fail "DuckDB: parquet_metadata"
grep -qx 'money PLAIN, RLE, RLE_DICTIONARY dict ZSTD' "$tmp/enc.out" &&
    grep -qx 'big PLAIN, RLE none ZSTD' "$tmp/enc.out" ||
    fail "dictionary: money not dictionary-encoded or big not PLAIN: $(cat "$tmp/enc.out")"
# one value in a column chunk: a dictionary of one entry, its indices of bit width 0
node -e 'for (let i = 0; i < 40; i++) console.log(JSON.stringify({ Item: { pk: { S: `thing#${i}` },
  sk: { S: `thing#${i}` }, note: { S: "same" }, money: { N: "12.5" }, tags: { SS: ["a", "b"] } } }))' \
    >"$tmp/one-value.json"
export_both one-value "$fixture/mapping.json" -- "$tmp/one-value.json"
encodings "$tmp/one-value/pq/Thing.parquet" note money >"$tmp/enc.out" 2>&1
expect_in "$tmp/enc.out" "note PLAIN, RLE, RLE_DICTIONARY dict ZSTD"
expect_in "$tmp/enc.out" "money PLAIN, RLE, RLE_DICTIONARY dict ZSTD"
# generate partitions too (by an N field: bigint folders)
check gen-part 0 "$bin" generate --mapping "$root/formats/movies.json" --count 60 \
    --format parquet --partition-by releaseYear --out "$tmp/gen-part" --quiet
check_same gen-part "$tmp/gen/nd" "$tmp/gen-part" "$root/formats/movies.json" \
    --partition releaseYear
# a second run into the same folders would leave the first run's parts beside its own: refused
check part-again 2 "$bin" export "$tmp/part.json" --mapping "$fixture/mapping.json" \
    --format parquet --partition-by note --out "$tmp/part-note" --overwrite --quiet
expect_in "$tmp/stderr" "part-note/Thing holds files of an earlier run"
check part-unknown 2 "$bin" export "$tmp/part.json" --mapping "$fixture/mapping.json" \
    --format parquet --partition-by nope --out "$tmp/part-x"
expect_in "$tmp/stderr" "no entity of the mapping declares that field"
check part-map 2 "$bin" export "$tmp/part.json" --mapping "$fixture/mapping.json" \
    --format parquet --partition-by meta --out "$tmp/part-x"
expect_in "$tmp/stderr" "Thing.meta is M"
check part-csv 2 "$bin" export "$tmp/part.json" --mapping "$fixture/mapping.json" \
    --format csv --partition-by note --out "$tmp/part-x"
expect_in "$tmp/stderr" "--partition-by is for --format parquet"

# the schema sidecar describes the Parquet files: its Athena DDL's column types (DuckDB cannot
# run it) are those DuckDB reads from the files, through the load script the sidecar ships
ddl_agrees() { # NAME OUT_DIR
    (cd "$2" && ROOT="$root" node - "$2/_ddbpipe/schema" >"$tmp/$1.ddl" 2>&1) <<'EOF' ||
const { DuckDBInstance } = require(process.env.ROOT + '/node_modules/@duckdb/node-api');
const fs = require('fs');
const athenaOf = t => t.endsWith('[]') ? `array<${athenaOf(t.slice(0, -2))}>`
  : t.startsWith('DECIMAL') ? t.toLowerCase() : t === 'BIGINT' ? 'bigint' : t === 'BLOB' ? 'binary'
  : t === 'BOOLEAN' ? 'boolean' : t === 'VARCHAR' || t === 'JSON' ? 'string' : `?${t}`;
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const dir = process.argv[2];
  await c.run(fs.readFileSync(`${dir}/load.duckdb.sql`, 'utf8'));
  for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.athena.sql'))) {
    const entity = f.replace(/\.athena\.sql$/, '');
    const ddl = fs.readFileSync(`${dir}/${f}`, 'utf8');
    const want = new Map([...ddl.matchAll(/^ {2}`([^`]+)` (.+?),?$/gm), ...ddl.matchAll(/PARTITIONED BY \(`([^`]+)` (.+)\)/g)]
      .map(m => [m[1], m[2]]));
    const got = (await c.runAndReadAll(`DESCRIBE "${entity}"`)).getRowObjectsJson();
    if (got.length !== want.size) throw new Error(`${entity}: ${got.length} columns in DuckDB, ${want.size} in the DDL`);
    for (const { column_name: n, column_type: t } of got)
      if (want.get(n) !== athenaOf(t)) throw new Error(`${entity}.${n}: DuckDB reads ${t}, the DDL says ${want.get(n)}`);
    console.log(`${entity}: ${got.length} columns agree`);
  }
})().catch(e => { console.error(e.message); process.exit(1); });
EOF
        { fail "$1: the Athena DDL and DuckDB disagree"; cat "$tmp/$1.ddl" >&2; }
}
ddl_agrees exact-ddl "$tmp/exact-zstd/pq"
ddl_agrees fav-part-ddl "$tmp/fav-part"
ddl_agrees gen-part-ddl "$tmp/gen-part"
for field in note big flag; do ddl_agrees "part-$field-ddl" "$tmp/part-$field"; done
ddl="$tmp/part-big/_ddbpipe/schema/Thing.athena.sql"
for want in 'PARTITIONED BY (`big` bigint)' 'STORED AS PARQUET' '  `money` decimal(38,18),' \
    "LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/Thing/';" 'MSCK REPAIR TABLE `Thing`;'; do
    grep -qF -- "$want" "$ddl" || fail "partition-by big: no '$want' in the DDL: $(cat "$ddl")"
done
grep -q '`big`.*,$' "$ddl" && fail "partition-by big: the partition field is a column of the files"
expect_in "$tmp/exact-zstd/pq/_ddbpipe/schema/Thing.athena.sql" '  `frac` decimal(38,38),'
expect_in "$tmp/exact-zstd/pq/_ddbpipe/schema/load.duckdb.sql" "read_parquet('Thing.parquet')"
expect_in "$tmp/part-note/_ddbpipe/schema/load.duckdb.sql" \
    "read_parquet('Thing/**/*.parquet', hive_partitioning = true,"

# --max-file-size: each entity's records in parts, OUT/<Entity>/part-NNNNN.parquet, each under
# the size (a row group closed early), read together by DuckDB (and part after part by
# hyparquet) as exactly the NDJSON records in order, the sidecar's load script and Athena DDL
# over the folder; read back by ddbpipe as the items they came from
node "$root/tests/seeds/seed-writers.js" favorites 3000 7 >"$tmp/fav3k.json" || fail "seed writer"
check parts-ndjson 0 "$bin" export "$tmp/fav3k.json" --mapping "$root/formats/favorites.json" \
    --format ndjson --out "$tmp/parts-nd" --quiet
check parts 0 "$bin" export "$tmp/fav3k.json" --mapping "$root/formats/favorites.json" \
    --format parquet --max-file-size 16K --out "$tmp/parts" --quiet
for entity in Tag FavoriteData FavoriteDataTag; do
    [ -f "$tmp/parts/$entity/part-00000.parquet" ] && [ -f "$tmp/parts/$entity/part-00001.parquet" ] ||
        fail "parts: $entity has not two parts: $(ls "$tmp/parts/$entity" 2>&1)"
done
[ -e "$tmp/parts/Tag.parquet" ] && fail "parts: Tag.parquet beside its parts"
for f in "$tmp/parts"/*/part-*.parquet; do
    size=$(stat -c %s "$f")
    [ "$size" -le 16384 ] || fail "parts: $f is $size bytes, past 16K"
    [ "$size" -ge 4096 ] || [ "$f" = "$(ls "$(dirname "$f")"/part-*.parquet | tail -1)" ] ||
        fail "parts: $f is $size bytes: a part other than the last is far from 16K"
done
node "$root/tests/scripts/parquet-check.mjs" "$tmp/parts-nd" "$tmp/parts" \
    "$root/formats/favorites.json" --parts >"$tmp/parts.check" 2>&1 ||
    { fail "parts: Parquet differs from NDJSON"; cat "$tmp/parts.check" >&2; }
expect_in "$tmp/parts.check" "3 files, 3001 records the same as NDJSON in DuckDB, 3 files in hyparquet"
ddl_agrees parts-ddl "$tmp/parts"
expect_in "$tmp/parts/_ddbpipe/schema/load.duckdb.sql" "read_parquet('FavoriteData/*.parquet');"
expect_in "$tmp/parts/_ddbpipe/schema/FavoriteData.athena.sql" \
    "LOCATION 's3://YOUR-BUCKET/YOUR-PREFIX/FavoriteData/';"
expect_in "$tmp/parts/_ddbpipe/schema/FavoriteData.json" '"folder":"FavoriteData"'
check parts-encode 0 "$bin" encode "$tmp/parts"/*/part-*.parquet \
    --mapping "$root/formats/favorites.json" --out "$tmp/parts-back" --quiet
node "$root/tests/seeds/same-items.js" "$tmp/fav3k.json" -- "$tmp/parts-back"/*.json \
    >"$tmp/same.out" 2>&1 || { fail "parts: items differ"; tail -5 "$tmp/same.out" >&2; }
# an entity without records (only Tag items here) gets one empty part: its folder reads
grep -v dataId "$tmp/fav3k.json" | head -20 >"$tmp/tags.json"
check parts-empty 0 "$bin" export "$tmp/tags.json" --mapping "$root/formats/favorites.json" \
    --format parquet --max-file-size 16K --out "$tmp/parts-empty" --quiet
[ -f "$tmp/parts-empty/FavoriteData/part-00000.parquet" ] || fail "parts: no part of an empty entity"
ddl_agrees parts-empty-ddl "$tmp/parts-empty"
# with --partition-by, a folder's file at its size goes on in a new part; numbers keep one type
check parts-hive 0 "$bin" export "$tmp/fav3k.json" --mapping "$root/formats/favorites.json" \
    --format parquet --partition-by dataType --max-file-size 8K --out "$tmp/parts-hive" --quiet
[ "$(ls "$tmp/parts-hive/FavoriteData/dataType=IMAGE" | wc -l)" -ge 2 ] ||
    fail "parts with --partition-by: one file in dataType=IMAGE"
check_same parts-hive "$tmp/parts-nd" "$tmp/parts-hive" "$root/formats/favorites.json" \
    --partition dataType --parts
# sizes, and what the option is not for
check parts-again 2 "$bin" export "$tmp/fav3k.json" --mapping "$root/formats/favorites.json" \
    --format parquet --max-file-size 16K --out "$tmp/parts" --overwrite --quiet
expect_in "$tmp/stderr" "parts/Tag holds files of an earlier run"
check parts-csv 2 "$bin" export "$tmp/fav3k.json" --mapping "$root/formats/favorites.json" \
    --format csv --max-file-size 64M --out "$tmp/parts-x"
expect_in "$tmp/stderr" "--max-file-size is for --format parquet"
check parts-size 2 "$bin" export "$tmp/fav3k.json" --mapping "$root/formats/favorites.json" \
    --format parquet --max-file-size 64Q --out "$tmp/parts-x"
expect_in "$tmp/stderr" '--max-file-size: "64Q" is not a size'

# Parquet as input: what export wrote reads back as exactly the items it came from
same() { node "$root/tests/seeds/same-items.js" "$@" >"$tmp/same.out" 2>&1 || { fail "items differ: $*"; tail -5 "$tmp/same.out" >&2; }; }
for pair in favorites:favorites facility:facility-capacity movies:movies; do
    design=${pair%%:*} mapping="$root/formats/${pair#*:}.json"
    check "$design-encode" 0 "$bin" encode "$tmp/$design-seed/pq"/[A-Z]*.parquet \
        --mapping "$mapping" --out "$tmp/$design-back" --quiet
    same "$tmp/$design.json" -- "$tmp/$design-back"/*.json
done
check favorites-diff 0 "$bin" diff "$tmp/favorites-seed/pq" "$tmp/favorites.json" \
    --mapping "$root/formats/favorites.json" --out "$tmp/diff" --quiet
check exact-encode 0 "$bin" encode "$tmp/exact-zstd/pq/Thing.parquet" \
    --mapping "$fixture/mapping.json" --out "$tmp/exact-back" --quiet
same "$fixture/items.json" -- "$tmp/exact-back/Thing.json"
check aws-items 0 "$bin" export "$tmp/aws/pq/items.parquet" --format ddb-json \
    --out "$tmp/aws-back" --quiet
check aws-ref 0 "$bin" export \
    "$shared/aws-export/01716790307109-5f9d6aaa/data/6w7gruvaie6wbf3wtvh4vdniiy.json.gz" \
    --format ddb-json --out "$tmp/aws-ref" --quiet
same "$tmp/aws-ref/items.json" -- "$tmp/aws-back/items.json"
# declared decimals (the fixture's price, qty, ratio): DECIMAL(5,2) in INT32, DECIMAL(18,0) in
# INT64, DECIMAL(30,10) in a 13-byte FIXED_LEN_BYTE_ARRAY, read back exactly by both readers and
# by import; a value past its declaration is rejected with the reason, in every format
export_both declared "$fixture/mapping.json" -- "$fixture/declared.json"
for fmt in nd pq; do
    rej="$tmp/declared/$fmt/_ddbpipe/rejects.ndjson"
    expect_in "$rej" "field price: '1234.5' has 4 digits before the point, more than DECIMAL(5,2) holds (3)"
    expect_in "$rej" "field ratio: '0.12345678901' has 11 digits after the point, more than its scale 10"
done
ROOT="$root" node - "$tmp/declared/pq/Thing.parquet" >"$tmp/declared.out" 2>&1 <<'EOF' || { fail "DuckDB: declared decimals"; cat "$tmp/declared.out" >&2; }
const { DuckDBInstance } = require(process.env.ROOT + '/node_modules/@duckdb/node-api');
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const f = process.argv[2];
  const rows = async q => (await c.runAndReadAll(q)).getRowObjectsJson();
  for (const r of await rows(`DESCRIBE SELECT price, qty, ratio FROM read_parquet('${f}')`))
    console.log(`${r.column_name}:${r.column_type}`);
  for (const r of await rows(`SELECT name, type, type_length FROM parquet_schema('${f}')
      WHERE name IN ('price', 'qty', 'ratio')`))
    console.log(`${r.name}:${r.type}:${r.type_length ?? ''}`);
  for (const r of await rows(`SELECT path_in_schema p, stats_min_value mn, stats_max_value mx
      FROM parquet_metadata('${f}') WHERE path_in_schema IN ('price', 'qty', 'ratio')`))
    console.log(`${r.p} from ${r.mn} to ${r.mx}`);
  const s = (await rows(`SELECT CAST(sum(price) AS VARCHAR) p, CAST(sum(qty) AS VARCHAR) q,
      CAST(sum(ratio) AS VARCHAR) r FROM read_parquet('${f}')`))[0];
  console.log(`sums ${s.p} ${s.q} ${s.r}`);
})().catch(e => { console.error(e); process.exit(1); });
EOF
for want in "price:DECIMAL(5,2)" "qty:DECIMAL(18,0)" "ratio:DECIMAL(30,10)" "price:INT32:" \
    "qty:INT64:" "ratio:FIXED_LEN_BYTE_ARRAY:13" "price from -999.99 to 123.45" \
    "qty from -999999999999999999 to 999999999999999999" \
    "ratio from -99999999999999999999.9999999999 to 12345678901234567890.1234567891" \
    "sums -876.04 0 -87654321098765432109.8765432107"; do
    grep -qxF -- "$want" "$tmp/declared.out" || fail "DuckDB: no '$want' in: $(cat "$tmp/declared.out")"
done
ddl_agrees declared-ddl "$tmp/declared/pq"
expect_in "$tmp/declared/pq/_ddbpipe/schema/Thing.athena.sql" '  `ratio` decimal(30,10),'
check declared-encode 0 "$bin" encode "$tmp/declared/pq/Thing.parquet" \
    --mapping "$fixture/mapping.json" --out "$tmp/declared-back" --quiet
# (a DECIMAL holds the value, not its spelling: 1E-10 comes back as 0.0000000001)
head -3 "$fixture/declared.json" | sed 's/"1E-10"/"0.0000000001"/' >"$tmp/declared-kept.json"
same "$tmp/declared-kept.json" -- "$tmp/declared-back/Thing.json"

# what it does not read, refused with the reason; what DuckDB writes (dictionary pages) it reads
duck_write() { # FILE SELECT OPTIONS
    ROOT="$root" node -e '
const { DuckDBInstance } = require(process.env.ROOT + "/node_modules/@duckdb/node-api");
(async () => { const c = await (await DuckDBInstance.create(":memory:")).connect();
  await c.run(`COPY (${process.argv[2]}) TO '"'"'${process.argv[1]}'"'"' (FORMAT parquet, ${process.argv[3]})`);
})().catch(e => { console.error(e); process.exit(1); });' "$@" || fail "DuckDB could not write $1"
}
duck_write "$tmp/duck.parquet" "SELECT (i % 3)::VARCHAR AS s, i::INTEGER AS n FROM range(100) t(i)" \
    "COMPRESSION snappy"
encodings "$tmp/duck.parquet" s >"$tmp/enc.out" 2>&1
expect_in "$tmp/enc.out" "_DICTIONARY dict SNAPPY"
check duck-file 0 "$bin" export "$tmp/duck.parquet" --format ndjson --out "$tmp/duck-out" --quiet
[ "$(head -4 "$tmp/duck-out/items.ndjson")" = '{"s":"0","n":0}
{"s":"1","n":1}
{"s":"2","n":2}
{"s":"0","n":3}' ] && [ "$(wc -l <"$tmp/duck-out/items.ndjson")" = 100 ] ||
    fail "DuckDB's dictionary pages read wrong: $(head -5 "$tmp/duck-out/items.ndjson")"
duck_write "$tmp/duck-double.parquet" "SELECT 1.5::DOUBLE AS d" "COMPRESSION zstd"
run duck-double 3 "$bin" export "$tmp/duck-double.parquet" --format ddb-json --out "$tmp/duck-out2" --quiet
expect_in "$tmp/stderr" "is not read"

# what Parquet refuses, with the reason
check lz4 2 "$bin" export "$fixture/items.json" --mapping "$fixture/mapping.json" \
    --format parquet --compression lz4 --out "$tmp/lz4"
expect_in "$tmp/stderr" "use zstd, snappy, gzip or none"
check gzip-flag 2 "$bin" export "$fixture/items.json" --mapping "$fixture/mapping.json" \
    --format parquet --gzip --out "$tmp/gz"
expect_in "$tmp/stderr" "compresses its pages itself"
check compression-csv 2 "$bin" export "$fixture/items.json" --mapping "$fixture/mapping.json" \
    --format csv --compression zstd --out "$tmp/csv"
expect_in "$tmp/stderr" "--compression is for --format parquet"

exit $((failures > 0))
