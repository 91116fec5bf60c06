// Reads each Parquet file ddbpipe wrote with two independent readers, DuckDB (@duckdb/node-api)
// and hyparquet, and compares every record with the NDJSON export of the same input: the same
// records in the same order, numbers exact (compared as decimal values, never through a double),
// bytes exact, text exact (NUL bytes, newlines).
//
//   node parquet-check.mjs NDJSON_DIR PARQUET_DIR [MAPPING|-] [--no-hyparquet] [--partition FIELD]
//                          [--parts]
//
// With a mapping each entity's NDJSON file is compared with its Parquet file; a declared field
// whose value is NULL is, in Parquet as in CSV, under _extra. Without one, items.ndjson (plain
// values) with items.parquet's "item" column (DynamoDB JSON). Exit 1 on the first difference.
// With --partition FIELD, an entity folder PARQUET_DIR/<Entity>/FIELD=value/*.parquet (export
// --partition-by) is read by DuckDB as Hive partitions, and compared with the NDJSON records
// in any order; a value no folder can say (NULL, "") is then under _extra. With --parts, an
// entity folder PARQUET_DIR/<Entity>/part-NNNNN.parquet (export --max-file-size) is compared
// with the NDJSON records in order, all its parts together.
import { createRequire } from 'node:module'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { gunzipSync } from 'node:zlib'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'

const require = createRequire(import.meta.url)
const { DuckDBInstance } = require('@duckdb/node-api')
const [ndDir, pqDir, mappingPath = '-'] = process.argv.slice(2)
const useHyparquet = !process.argv.includes('--no-hyparquet')
const partField = process.argv.includes('--partition') ? process.argv[process.argv.indexOf('--partition') + 1] : null
const parts = process.argv.includes('--parts')
const mapping = mappingPath === '-' ? null : JSON.parse(readFileSync(mappingPath, 'utf8'))

// ---- exact numbers: "N:" + digits + "e" + exponent, no leading or trailing zeros
function canonNum(text) {
  const m = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(String(text))
  if (!m) throw new Error(`not a number: ${text}`)
  let digits = (m[2] || '') + (m[3] || '')
  let exp = BigInt(m[4] || 0) - BigInt((m[3] || '').length)
  digits = digits.replace(/^0+/, '')
  if (digits === '') return 'N:0'
  while (digits.endsWith('0')) { digits = digits.slice(0, -1); exp++ }
  return `N:${m[1] === '-' ? '-' : ''}${digits}e${exp}`
}

// ---- JSON with numbers kept as their text (Num)
class Num { constructor(t) { this.t = t } }
const NUMBER = /true|false|null|-?[0-9][0-9.eE+-]*/y
function parseNd(text) {
  let i = 0
  const ws = () => { while (text.charCodeAt(i) <= 32) i++ }
  const str = () => {
    const s = i++
    let escaped = false
    for (let c = text.charCodeAt(i); c !== 34; c = text.charCodeAt(i)) {
      if (c === 92) { escaped = true; i += 2 } else i++
    }
    i++
    return escaped ? JSON.parse(text.slice(s, i)) : text.slice(s + 1, i - 1)
  }
  const value = () => {
    ws()
    const c = text[i]
    if (c === '{' || c === '[') {
      const obj = c === '{' ? {} : []
      i++; ws()
      if (text[i] === (c === '{' ? '}' : ']')) { i++; return obj }
      for (;;) {
        ws()
        if (c === '{') { const k = str(); ws(); i++; obj[k] = value() } else obj.push(value())
        ws()
        if ('}]'.includes(text[i++])) return obj
      }
    }
    if (c === '"') return str()
    NUMBER.lastIndex = i
    const m = NUMBER.exec(text)
    i += m[0].length
    return m[0] === 'true' ? true : m[0] === 'false' ? false : m[0] === 'null' ? null : new Num(m[0])
  }
  return value()
}
function canon(v) {
  if (v === null || typeof v !== 'object') return v
  if (v instanceof Num) return canonNum(v.t)
  if (Array.isArray(v)) return v.map(canon)
  return sorted(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canon(x)])))
}
function sorted(o) { return Object.fromEntries(Object.keys(o).sort().map(k => [k, o[k]])) }

// DynamoDB JSON value -> the canonical plain value NDJSON gives
function typedToPlain(t) {
  const [type, v] = Object.entries(t)[0]
  switch (type) {
    case 'S': case 'B': return v
    case 'N': return canonNum(v)
    case 'BOOL': return v
    case 'NULL': return null
    case 'M': return sorted(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typedToPlain(x)])))
    case 'L': return v.map(typedToPlain)
    case 'SS': case 'BS': return v
    case 'NS': return v.map(canonNum)
  }
  throw new Error(`unknown type ${type}`)
}

// ---- the expected records, from NDJSON
function expected(file, entity) {
  const fields = new Map((entity?.fields || []).map(f => [f.name, f.type]))
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(line => {
    const rec = parseNd(line)
    if (!entity) return canon(rec)
    const out = {}
    const extra = rec._extra ? JSON.parse(JSON.stringify(rec._extra, (k, x) => x instanceof Num ? x.t : x)) : {}
    for (const [k, v] of Object.entries(rec)) {
      if (k === '_extra') continue
      if (v === null && fields.get(k) !== 'NULL') extra[k] = { NULL: true }
      else out[k] = canon(v)
    }
    if (Object.keys(extra).length) out._extra = sorted(extra)
    return sorted(out)
  })
}

// ---- a Parquet row (strings for text, base64 for bytes, decimal text) -> canonical
// a STRUCT (a map whose members the mapping declares): its members present, numbers exact
function fromStruct(v, members) {
  const types = new Map(members.map(m => [m.name, m.type]))
  const out = {}
  for (const [m, x] of Object.entries(v)) {
    if (x === null || x === undefined) continue
    const t = types.get(m)
    out[m] = t === 'N' ? canonNum(x) : t === 'NS' ? x.map(canonNum) : t === 'M' || t === 'L' ? typedToPlain(JSON.parse(t === 'M' ? `{"M":${x}}` : `{"L":${x}}`)) : x
  }
  return sorted(out)
}

function fromParquet(row, entity, numbersAsText, decimals) {
  const fields = new Map((entity?.fields || []).map(f => [f.name, f.type]))
  const structs = new Map((entity?.fields || []).filter(f => f.fields).map(f => [f.name, f.fields]))
  if (!entity) { // the item whole, and its key columns (if any) each the item's attribute
    const item = sorted(Object.fromEntries(Object.entries(JSON.parse(row.item)).map(([a, x]) => [a, typedToPlain(x)])))
    for (const [k, v] of Object.entries(row)) {
      if (k === 'item') continue
      const got = v === null || v === undefined ? undefined : decimals.has(k) ? canonNum(v) : v
      // null: the item has no such key, or one of another type than the column's
      if (got !== undefined && JSON.stringify(got) !== JSON.stringify(item[k])) throw new Error(`key column ${k}: ${JSON.stringify(v)}, the item has ${JSON.stringify(item[k])}`)
    }
    return item
  }
  const out = {}
  for (const [k, v] of Object.entries(row)) {
    if (v === null || v === undefined) continue
    if (k === '_extra') {
      // a declared map that was not as declared is under _extra, whole
      const extra = JSON.parse(v)
      for (const f of structs.keys()) if (extra[f]?.M) { out[f] = typedToPlain(extra[f]); delete extra[f] }
      if (Object.keys(extra).length) out[k] = sorted(extra)
      continue
    }
    const type = fields.get(k)
    const isNum = decimals.has(k) || numbersAsText.has(k)
    if (structs.has(k)) out[k] = fromStruct(v, structs.get(k))
    else if (type === 'M') out[k] = sorted(Object.fromEntries(Object.entries(JSON.parse(v)).map(([a, x]) => [a, typedToPlain(x)])))
    else if (type === 'L') out[k] = JSON.parse(v).map(typedToPlain)
    else if (type === 'NULL') out[k] = null
    else if (Array.isArray(v)) out[k] = v.map(x => isNum ? canonNum(x) : x)
    else out[k] = isNum ? canonNum(v) : v
  }
  return sorted(out)
}
function same(a, b) { return JSON.stringify(a) === JSON.stringify(b) }

function compare(reader, file, want, got) {
  if (want.length !== got.length) throw new Error(`${reader} ${file}: ${got.length} records, NDJSON has ${want.length}`)
  for (let i = 0; i < want.length; i++) {
    if (!same(want[i], got[i])) {
      throw new Error(`${reader} ${file}: record ${i} differs\n  ndjson:  ${JSON.stringify(want[i])}\n  parquet: ${JSON.stringify(got[i])}`)
    }
  }
}

// ---- DuckDB: the rows of from (a read_parquet) with bytes as base64 and decimals as text,
// and which number columns its files (glob) keep as text
async function readDuck(conn, glob, from = `read_parquet('${glob}')`) {
  const kv = (await conn.runAndReadAll(`SELECT decode(key) k, decode(value) v FROM parquet_kv_metadata('${glob}')`)).getRowObjectsJson()
  const asText = new Set(kv.filter(r => r.k === 'ddbpipe.numbers_as_text').flatMap(r => r.v.split(',')).filter(Boolean))
  const cols = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)).getRowObjectsJson()
  const decimals = new Set()
  const quote = n => `"${n.replace(/"/g, '""')}"`
  const expr = (q, t) => {
    if (t === 'BLOB') return `base64(${q})`
    if (t === 'BLOB[]') return `list_transform(${q}, x -> base64(x))`
    if (t.startsWith('DECIMAL') && t.endsWith('[]')) return `list_transform(${q}, x -> CAST(x AS VARCHAR))`
    if (t.startsWith('DECIMAL') || t === 'JSON') return `CAST(${q} AS VARCHAR)`
    return q
  }
  const sel = []
  for (const { column_name: n, column_type: t } of cols) {
    const q = quote(n)
    if (t.startsWith('DECIMAL')) decimals.add(n)
    if (t.startsWith('STRUCT(')) { // each member as the top-level columns are
      const members = (await conn.runAndReadAll(`DESCRIBE SELECT UNNEST(${q}) FROM ${from}`)).getRowObjectsJson()
      sel.push(`CASE WHEN ${q} IS NULL THEN NULL ELSE struct_pack(${members.map(m => `${quote(m.column_name)} := ${expr(`${q}.${quote(m.column_name)}`, m.column_type)}`).join(', ')}) END AS ${q}`)
    } else sel.push(`${expr(q, t)} AS ${q}`)
  }
  const rows = (await conn.runAndReadAll(`SELECT ${sel.join(', ')} FROM ${from}`)).getRowObjectsJson()
  return { rows, asText, decimals, cols }
}

// ---- DuckDB, an entity's Hive folders as a user reads them: the partition column from the
// folder names (text, never cast), then as the mapping types it
async function readDuckHive(conn, dir, entity) {
  const glob = `${dir}/**/*.parquet`
  const { rows, asText, decimals } = await readDuck(conn, glob,
    `read_parquet('${glob}', hive_partitioning = true, hive_types_autocast = false)`)
  const type = entity.fields.find(f => f.name === partField).type
  return rows.map(r => {
    const v = r[partField]
    const got = fromParquet({ ...r, [partField]: null }, entity, asText, decimals)
    if (v !== null) got[partField] = type === 'N' ? canonNum(v) : type === 'BOOL' ? v === 'true' : v
    const kept = got._extra?.[partField]
    if (kept && type in kept && kept[type] === '') { // "" is no folder's value: kept under _extra
      got[partField] = ''
      delete got._extra[partField]
      if (!Object.keys(got._extra).length) delete got._extra
    }
    return sorted(got)
  })
}
function compareAnyOrder(reader, file, want, got) {
  const key = r => JSON.stringify(r)
  compare(reader, file, want.map(key).sort().map(JSON.parse), got.map(key).sort().map(JSON.parse))
}

// ---- hyparquet: DECIMAL annotations taken off so the values come through as they are stored
// (hyparquet would make a double of them): FIXED_LEN_BYTE_ARRAY as the big-endian two's
// complement it is, INT32 and INT64 as the integers they are, then scaled as text.
function hypDecompressors() {
  const c = { GZIP: input => gunzipSync(input) }
  try {
    execFileSync('zstd', ['--version'], { stdio: 'ignore' })
    c.ZSTD = input => new Uint8Array(execFileSync('zstd', ['-d', '-c'], { input, maxBuffer: 1 << 30 }))
  } catch { /* no zstd command: ZSTD files are left to DuckDB */ }
  return c
}
const compressors = hypDecompressors()
function decimalText(stored, scale) {
  let v = 0n
  if (stored instanceof Uint8Array) {
    for (const b of stored) v = (v << 8n) | BigInt(b)
    if (stored[0] & 0x80) v -= 1n << BigInt(8 * stored.length)
  } else {
    v = BigInt(stored) // INT32 (a number) or INT64 (a BigInt)
  }
  const neg = v < 0n
  let s = (neg ? -v : v).toString().padStart(scale + 1, '0')
  if (scale) s = s.slice(0, -scale) + '.' + s.slice(-scale)
  return (neg ? '-' : '') + s
}
async function readHyp(file) {
  const buf = readFileSync(file)
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
  const metadata = parquetMetadata(ab)
  const codecs = new Set(metadata.row_groups.flatMap(g => g.columns.map(c => c.meta_data.codec)))
  // (SNAPPY is hyparquet's own)
  for (const c of codecs) if (c !== 'UNCOMPRESSED' && c !== 'SNAPPY' && !compressors[c]) return null
  const decimals = new Set() // the schema elements that were DECIMAL
  for (const el of metadata.schema) {
    if (el.converted_type === 'DECIMAL') {
      decimals.add(el)
      delete el.converted_type
      delete el.logical_type
    }
  }
  const dec = new TextDecoder()
  const rows = await parquetReadObjects({
    file: ab, metadata, compressors, utf8: false,
    parsers: { jsonFromBytes: b => b && dec.decode(b) },
  })
  // column names of the top level: a list's leaf is "element"
  // (a STRUCT's members by "struct.member")
  const top = metadata.schema.slice(1)
  const leafScale = new Map()
  const walk = (i, prefix, count) => {
    for (let n = 0; n < count; n++) {
      const el = top[i]
      if (el.num_children === 1 && top[i + 2]?.name === 'element') { if (decimals.has(top[i + 2])) leafScale.set(prefix + el.name, top[i + 2].scale || 0); i += 3 }
      else if (el.num_children > 0) i = walk(i + 1, `${el.name}.`, el.num_children)
      else { if (decimals.has(el)) leafScale.set(prefix + el.name, el.scale || 0); i++ }
    }
    return i
  }
  walk(0, '', metadata.schema[0].num_children)
  const b64 = x => Buffer.from(x).toString('base64')
  const plain = (name, v) => {
    if (v === null || v === undefined) return null
    const s = leafScale.get(name)
    if (s !== undefined) return Array.isArray(v) ? v.map(x => decimalText(x, s)) : decimalText(v, s)
    if (v instanceof Uint8Array) return b64(v)
    if (Array.isArray(v)) return v.map(x => x instanceof Uint8Array ? b64(x) : x)
    if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([m, x]) => [m, plain(`${name}.${m}`, x)]))
    return v
  }
  return rows.map(r => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(k, v)])))
}

const db = await DuckDBInstance.create(':memory:')
const conn = await db.connect()
let files = 0, records = 0, hyp = 0
try {
  const folders = readdirSync(pqDir).filter(f => !f.startsWith('_') && statSync(`${pqDir}/${f}`).isDirectory()).sort()
  const entityOf = name => mapping ? mapping.entities.find(e => e.name === name.replace(/\.deletes$/, '')) : null
  const hive = name => partField && entityOf(name).fields.some(f => f.name === partField)
  for (const name of folders.filter(hive)) {
    const entity = entityOf(name)
    const want = expected(`${ndDir}/${name}.ndjson`, entity)
    compareAnyOrder('duckdb', `${pqDir}/${name}`, want, await readDuckHive(conn, `${pqDir}/${name}`, entity))
    files++
    records += want.length
  }
  // --parts: an entity's folder of parts (not of Hive folders), read whole by DuckDB (a glob, the
  // parts in name order) and part after part by hyparquet: the NDJSON records in the same order
  for (const name of folders.filter(f => parts && !hive(f))) {
    const entity = entityOf(name)
    const want = expected(`${ndDir}/${name}.ndjson`, entity)
    const glob = `${pqDir}/${name}/*.parquet`
    const d = await readDuck(conn, glob)
    compare('duckdb', glob, want, d.rows.map(r => fromParquet(r, entity, d.asText, d.decimals)))
    let h = useHyparquet ? [] : null
    for (const p of readdirSync(`${pqDir}/${name}`).filter(f => f.endsWith('.parquet')).sort()) {
      const rows = h && await readHyp(`${pqDir}/${name}/${p}`)
      h = rows ? h.concat(rows.map(r => fromParquet(r, entity, d.asText, d.decimals))) : null
    }
    if (h) {
      compare('hyparquet', glob, want, h)
      hyp++
    }
    files++
    records += want.length
  }
  for (const name of readdirSync(pqDir).filter(f => f.endsWith('.parquet')).sort()) {
    const base = name.replace(/\.parquet$/, '')
    const entity = mapping ? mapping.entities.find(e => e.name === base.replace(/\.deletes$/, '')) : null
    const want = expected(`${ndDir}/${base}.ndjson`, entity)
    const file = `${pqDir}/${name}`
    const d = await readDuck(conn, file)
    compare('duckdb', file, want, d.rows.map(r => fromParquet(r, entity, d.asText, d.decimals)))
    const h = useHyparquet ? await readHyp(file) : null
    if (h) {
      compare('hyparquet', file, want, h.map(r => fromParquet(r, entity, d.asText, d.decimals)))
      hyp++
    }
    files++
    records += want.length
  }
} catch (e) {
  console.error(e.message)
  process.exit(1)
}
console.log(`${files} files, ${records} records the same as NDJSON in DuckDB${hyp ? `, ${hyp} files in hyparquet` : ''}`)
