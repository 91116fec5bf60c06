// The jobs behind control-server.js: point-in-time recovery settings, exports written into
// s3rver from the real AWS export under --export-data, and imports read from s3rver into
// dynalite (CreateTable, then BatchWriteItem), each as slow and as strict as DynamoDB.
'use strict'

const crypto = require('crypto')
const fs = require('fs')
const http = require('http')
const path = require('path')
const zlib = require('zlib')

class ApiError extends Error {
  constructor (type, message, status = 400) { super(message); this.type = type; this.status = status }
}

const FULL_SOURCE = '01716790307109-5f9d6aaa'
const INCREMENTAL_SOURCE = '01716791487000-6ddcf8cf'
const MIN_WINDOW = 15 * 60
const MAX_WINDOW = 24 * 60 * 60
const ACCOUNT = '000000000000'

// ---- requests: the checks the service makes -----------------------------------------------------

function invalid (msg) { return new ApiError('ValidationException', msg) }

function lowerFirst (s) { return s[0].toLowerCase() + s.slice(1) }

function members (obj, allowed, where) {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw invalid(`Unknown member ${where}${k}: ${where.replace(/\.$/, '') || 'the request'} has no such member (it takes ${allowed.join(', ')})`)
  }
}

function required (obj, key, type, where = '') {
  const v = obj[key]
  if (v === undefined || v === null) throw invalid(`1 validation error detected: Value null at '${where}${lowerFirst(key)}' failed to satisfy constraint: Member must not be null`)
  if (type && typeof v !== type && !(type === 'array' && Array.isArray(v))) throw new ApiError('SerializationException', `Unexpected value for ${where}${key}`)
  return v
}

function oneOf (obj, key, values, where = '') {
  const v = obj[key]
  if (v !== undefined && !values.includes(v)) throw invalid(`1 validation error detected: Value '${v}' at '${where}${lowerFirst(key)}' failed to satisfy constraint: Member must satisfy enum value set: [${values.join(', ')}]`)
  return v
}

function timestamp (obj, key, where = '') {
  const v = obj[key]
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !isFinite(v)) throw new ApiError('SerializationException', `Unexpected value for ${where}${key}: a timestamp is a number of seconds`)
  return v
}

function sameRequest (a, b) {
  const strip = (o) => JSON.stringify({ ...o, ClientToken: undefined })
  return strip(a) === strip(b)
}

function jobId () {
  return String(Date.now()).padStart(14, '0') + '-' + crypto.randomBytes(4).toString('hex')
}

function dataName () {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  let s = ''
  for (const b of crypto.randomBytes(26)) s += alphabet[b & 31]
  return s + '.json.gz'
}

const md5 = (buf, enc) => crypto.createHash('md5').update(buf).digest(enc)
const iso = (secs) => new Date(secs * 1000).toISOString()
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// ---- the services behind ----------------------------------------------------------------------

function request (url, method, p, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: p, headers }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

function context (opts, control) {
  const pitr = new Map() // table name -> { enabled, since (epoch seconds) }
  const exports = new Map() // arn -> export
  const imports = new Map() // arn -> import
  const byToken = new Map() // 'export:'/'import:' + token -> arn

  // dynalite insists on an AWS4-looking Authorization header, never checks it
  async function ddb (op, input) {
    const body = Buffer.from(JSON.stringify(input))
    const r = await request(opts.dynamodb, 'POST', '/', {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${op}`,
      'x-amz-date': '20240101T000000Z',
      authorization: `AWS4-HMAC-SHA256 Credential=AKIDCONTROL/20240101/${opts.region}/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000`,
      'content-length': body.length,
    }, body)
    const out = JSON.parse(r.body.toString('utf8') || '{}')
    if (r.status !== 200) {
      const type = String(out.__type || 'InternalServerError').split('#').pop()
      throw new ApiError(type, out.message || out.Message || 'error', r.status)
    }
    return out
  }

  async function describeTable (name) {
    try { return (await ddb('DescribeTable', { TableName: name })).Table } catch (e) {
      if (e.type === 'ResourceNotFoundException') return null
      throw e
    }
  }

  const s3path = (bucket, key) => '/' + bucket + '/' + key.split('/').map(encodeURIComponent).join('/')
  async function s3put (bucket, key, body) {
    const r = await request(opts.s3, 'PUT', s3path(bucket, key), { 'content-length': body.length, 'content-md5': md5(body, 'base64') }, body)
    if (r.status !== 200) {
      const code = (/<Code>([^<]*)<\/Code>/.exec(r.body.toString('utf8')) || [])[1] || `HTTP ${r.status}`
      throw Object.assign(new Error(`PutObject s3://${bucket}/${key}: ${code}`), { code })
    }
    return md5(body, 'hex')
  }
  async function s3get (bucket, key) {
    const r = await request(opts.s3, 'GET', s3path(bucket, key), {}, undefined)
    if (r.status !== 200) throw new Error(`GetObject s3://${bucket}/${key}: HTTP ${r.status}`)
    return r.body
  }
  async function s3list (bucket, prefix) {
    const keys = []
    let token = null
    for (;;) {
      let q = `list-type=2&prefix=${encodeURIComponent(prefix)}`
      if (token) q += `&continuation-token=${encodeURIComponent(token)}`
      const r = await request(opts.s3, 'GET', `/${bucket}?${q}`, {}, undefined)
      const text = r.body.toString('utf8')
      if (r.status !== 200) throw Object.assign(new Error(`ListObjectsV2 s3://${bucket}/${prefix}: HTTP ${r.status}`), { code: (/<Code>([^<]*)<\/Code>/.exec(text) || [])[1] })
      for (const m of text.matchAll(/<Key>([^<]*)<\/Key>/g)) keys.push(m[1].replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'"))
      const next = /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(text)
      if (!/<IsTruncated>true<\/IsTruncated>/.test(text) || !next) return keys
      token = next[1]
    }
  }

  // ---- point-in-time recovery ------------------------------------------------------------------

  function recovery (name) {
    const p = pitr.get(name) || { enabled: false, since: 0 }
    const now = Date.now() / 1000
    const d = { PointInTimeRecoveryStatus: p.enabled ? 'ENABLED' : 'DISABLED' }
    if (p.enabled) {
      d.EarliestRestorableDateTime = p.since
      d.LatestRestorableDateTime = now - 5 * 60 > p.since ? now - 5 * 60 : p.since
      d.RecoveryPeriodInDays = 35
    }
    return { ContinuousBackupsDescription: { ContinuousBackupsStatus: 'ENABLED', PointInTimeRecoveryDescription: d } }
  }

  async function tableNamed (input) {
    const name = required(input, 'TableName', 'string')
    if (!(await describeTable(name))) throw new ApiError('TableNotFoundException', `Table not found: ${name}`)
    return name
  }

  async function updateContinuousBackups (input) {
    members(input, [ 'TableName', 'PointInTimeRecoverySpecification' ], '')
    const name = await tableNamed(input)
    const spec = required(input, 'PointInTimeRecoverySpecification', 'object')
    members(spec, [ 'PointInTimeRecoveryEnabled', 'RecoveryPeriodInDays' ], 'PointInTimeRecoverySpecification.')
    const on = required(spec, 'PointInTimeRecoveryEnabled', 'boolean', 'pointInTimeRecoverySpecification.')
    const was = pitr.get(name)
    pitr.set(name, { enabled: on, since: on ? (was && was.enabled ? was.since : Date.now() / 1000) : 0 })
    return recovery(name)
  }

  async function describeContinuousBackups (input) {
    members(input, [ 'TableName' ], '')
    return recovery(await tableNamed(input))
  }

  // ---- exports ---------------------------------------------------------------------------------

  function exportDescription (e) {
    const d = {
      ExportArn: e.arn, ExportStatus: e.status, StartTime: e.start, TableArn: e.tableArn, TableId: e.tableId,
      S3Bucket: e.bucket, S3SseAlgorithm: e.sse, ExportFormat: 'DYNAMODB_JSON', ExportType: e.type,
      ExportManifest: e.prefixPart + `AWSDynamoDB/${e.id}/manifest-summary.json`,
    }
    if (e.prefix) d.S3Prefix = e.prefix
    if (e.kmsKey) d.S3SseKmsKeyId = e.kmsKey
    if (e.token) d.ClientToken = e.token
    if (e.type === 'FULL_EXPORT') d.ExportTime = e.time
    else d.IncrementalExportSpecification = { ExportFromTime: e.from, ExportToTime: e.to, ExportViewType: e.view }
    if (e.status !== 'IN_PROGRESS') d.EndTime = e.end
    if (e.status === 'COMPLETED') { d.ItemCount = e.itemCount; d.BilledSizeBytes = e.billed }
    if (e.status === 'FAILED') { d.FailureCode = e.failureCode; d.FailureMessage = e.failureMessage }
    return d
  }

  // The times an export may read: within the recovery window, 15 minutes to 24 hours wide.
  function exportTimes (input, name) {
    const type = oneOf(input, 'ExportType', [ 'FULL_EXPORT', 'INCREMENTAL_EXPORT' ]) || 'FULL_EXPORT'
    const spec = input.IncrementalExportSpecification
    const p = pitr.get(name)
    const now = Date.now() / 1000
    const inWindow = (t) => t >= p.since - 1 && t <= now
    if (type === 'FULL_EXPORT') {
      if (spec !== undefined) throw invalid('IncrementalExportSpecification is for an ExportType of INCREMENTAL_EXPORT')
      const time = timestamp(input, 'ExportTime')
      if (time !== undefined && !inWindow(time)) throw new ApiError('InvalidExportTimeException', `ExportTime ${iso(time)} is outside the point in time recovery window of table ${name} (${iso(p.since)} to now)`)
      return { type, time: time === undefined ? now : time }
    }
    if (input.ExportTime !== undefined) throw invalid('ExportTime is for an ExportType of FULL_EXPORT; an incremental export takes IncrementalExportSpecification')
    if (spec === undefined || typeof spec !== 'object') throw invalid('An ExportType of INCREMENTAL_EXPORT needs an IncrementalExportSpecification')
    members(spec, [ 'ExportFromTime', 'ExportToTime', 'ExportViewType' ], 'IncrementalExportSpecification.')
    const from = timestamp(spec, 'ExportFromTime', 'IncrementalExportSpecification.')
    if (from === undefined) throw invalid('1 validation error detected: Value null at \'incrementalExportSpecification.exportFromTime\' failed to satisfy constraint: Member must not be null')
    const to = timestamp(spec, 'ExportToTime', 'IncrementalExportSpecification.')
    const view = oneOf(spec, 'ExportViewType', [ 'NEW_IMAGE', 'NEW_AND_OLD_IMAGES' ], 'incrementalExportSpecification.') || 'NEW_AND_OLD_IMAGES'
    const end = to === undefined ? now : to
    if (!inWindow(from) || !inWindow(end)) throw new ApiError('InvalidExportTimeException', `The export period ${iso(from)} to ${iso(end)} is outside the point in time recovery window of table ${name} (${iso(p.since)} to now)`)
    if (end <= from) throw invalid('ExportToTime must be after ExportFromTime')
    if (end - from < MIN_WINDOW) throw invalid('The incremental export period must be at least 15 minutes')
    if (end - from > MAX_WINDOW) throw invalid('The incremental export period must be at most 24 hours')
    return { type, from, to: end, view }
  }

  async function exportTable (input, stats) {
    members(input, [ 'TableArn', 'ExportTime', 'ClientToken', 'S3Bucket', 'S3BucketOwner', 'S3Prefix', 'S3SseAlgorithm', 'S3SseKmsKeyId', 'ExportFormat', 'ExportType', 'IncrementalExportSpecification' ], '')
    const tableArn = required(input, 'TableArn', 'string')
    const bucket = required(input, 'S3Bucket', 'string')
    if (!/^[a-z0-9A-Z]+[.\-\w]*[a-z0-9A-Z]+$/.test(bucket) || bucket.length > 255) throw invalid(`1 validation error detected: Value '${bucket}' at 's3Bucket' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$`)
    const format = oneOf(input, 'ExportFormat', [ 'DYNAMODB_JSON', 'ION' ]) || 'DYNAMODB_JSON'
    const sse = oneOf(input, 'S3SseAlgorithm', [ 'AES256', 'KMS' ]) || 'AES256'
    if (input.S3SseKmsKeyId !== undefined && typeof input.S3SseKmsKeyId !== 'string') throw invalid('S3SseKmsKeyId must be a string')
    if (format !== 'DYNAMODB_JSON') throw invalid('This test server exports DYNAMODB_JSON only')
    const token = input.ClientToken
    if (token !== undefined && (typeof token !== 'string' || !/^[^$]+$/.test(token))) throw invalid(`1 validation error detected: Value '${token}' at 'clientToken' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[^\\$]+$`)
    if (token && byToken.has('export:' + token)) {
      const e = exports.get(byToken.get('export:' + token))
      if (!sameRequest(e.input, input)) throw new ApiError('ExportConflictException', `Export with ClientToken ${token} already exists with different parameters`)
      return { ExportDescription: exportDescription(e) }
    }
    const m = /^arn:aws:dynamodb:[^:]+:\d{12}:table\/([^/]+)$/.exec(tableArn)
    const t = m ? await describeTable(m[1]) : null
    if (!t || t.TableArn !== tableArn) throw new ApiError('TableNotFoundException', `Table not found: ${tableArn}`)
    if (!pitr.get(t.TableName) || !pitr.get(t.TableName).enabled) throw new ApiError('PointInTimeRecoveryUnavailableException', `Point in time recovery is not enabled for table '${t.TableName}'`)
    const times = exportTimes(input, t.TableName)
    const prefix = input.S3Prefix || ''
    const id = jobId()
    const e = {
      id, arn: `${tableArn}/export/${id}`, status: 'IN_PROGRESS', start: Date.now() / 1000, input, token, tableArn, tableId: t.TableId,
      bucket, prefix, prefixPart: prefix ? prefix.replace(/\/+$/, '') + '/' : '', polls: opts.exportPolls, fault: control.failNextExport, ...times,
      sse, kmsKey: input.S3SseKmsKeyId || null,
    }
    control.failNextExport = null
    exports.set(e.arn, e)
    if (token) byToken.set('export:' + token, e.arn)
    stats.exports++
    // DynamoDB first makes sure it can write there: an empty _started object.
    e.started = s3put(bucket, `${e.prefixPart}AWSDynamoDB/${id}/_started`, Buffer.alloc(0)).catch((err) => {
      e.fault = { code: err.code === 'NoSuchBucket' ? 'S3NoSuchBucket' : 'S3AccessDenied', message: err.code === 'NoSuchBucket' ? 'The specified bucket does not exist' : `Access Denied (${err.message})` }
    })
    return { ExportDescription: exportDescription(e) }
  }

  // The source's data files written as this export's, its manifests after them.
  async function writeExport (e) {
    const source = e.type === 'FULL_EXPORT' ? FULL_SOURCE : INCREMENTAL_SOURCE
    const dir = opts.exportData
    const summary = JSON.parse(fs.readFileSync(path.join(dir, source, 'manifest-summary.json'), 'utf8'))
    const lines = fs.readFileSync(path.join(dir, source, 'manifest-files.json'), 'utf8').split('\n').filter((l) => l.trim())
    const root = `${e.prefixPart}AWSDynamoDB/`
    let files = ''
    for (const line of lines) {
      const f = JSON.parse(line)
      let data = fs.readFileSync(path.join(dir, f.dataFileS3Key.slice(f.dataFileS3Key.lastIndexOf('AWSDynamoDB/') + 12)))
      if (e.type !== 'FULL_EXPORT' && e.view === 'NEW_IMAGE') {
        const out = zlib.gunzipSync(data).toString('utf8').split('\n').filter((l) => l).map((l) => { const r = JSON.parse(l); delete r.OldImage; return JSON.stringify(r) })
        data = zlib.gzipSync(out.join('\n') + '\n')
      }
      // A full export's files are its own; an incremental one's go to the shared data folder.
      const key = root + (e.type === 'FULL_EXPORT' ? `${e.id}/data/` : 'data/') + dataName()
      const etag = await s3put(e.bucket, key, data)
      files += JSON.stringify({ itemCount: f.itemCount, md5Checksum: md5(data, 'base64'), etag, dataFileS3Key: key }) + '\n'
    }
    e.end = Date.now() / 1000
    const filesKey = `${root}${e.id}/manifest-files.json`
    const s = {
      version: e.type === 'FULL_EXPORT' ? '2020-06-30' : '2023-08-01', exportArn: e.arn, startTime: iso(e.start), endTime: iso(e.end),
      tableArn: e.tableArn, tableId: e.tableId,
    }
    if (e.type === 'FULL_EXPORT') s.exportTime = iso(e.time)
    else { s.exportFromTime = iso(e.from); s.exportToTime = iso(e.to) }
    Object.assign(s, {
      s3Bucket: e.bucket, s3Prefix: e.prefix || null, s3SseAlgorithm: e.sse, s3SseKmsKeyId: e.kmsKey, manifestFilesS3Key: filesKey,
      billedSizeBytes: summary.billedSizeBytes, itemCount: summary.itemCount, outputFormat: 'DYNAMODB_JSON',
    })
    if (e.type !== 'FULL_EXPORT') { s.outputView = e.view; s.exportType = 'INCREMENTAL_EXPORT' }
    const summaryText = Buffer.from(JSON.stringify(s))
    await s3put(e.bucket, filesKey, Buffer.from(files))
    await s3put(e.bucket, `${root}${e.id}/manifest-files.md5`, Buffer.from(md5(Buffer.from(files), 'base64')))
    await s3put(e.bucket, `${root}${e.id}/manifest-summary.json`, summaryText)
    await s3put(e.bucket, `${root}${e.id}/manifest-summary.md5`, Buffer.from(md5(summaryText, 'base64')))
    e.itemCount = summary.itemCount
    e.billed = summary.billedSizeBytes
  }

  // Each poll brings the export closer; once the polls are spent it is written, then done.
  async function describeExport (input) {
    members(input, [ 'ExportArn' ], '')
    const arn = required(input, 'ExportArn', 'string')
    const e = exports.get(arn)
    if (!e) throw new ApiError('ExportNotFoundException', `Export not found: ${arn}`)
    if (e.status === 'IN_PROGRESS' && --e.polls <= 0 && !e.writing) {
      e.writing = e.started.then(() => {
        if (e.fault) throw Object.assign(new Error(e.fault.message), { code: e.fault.code })
        return writeExport(e)
      }).then(() => { e.status = 'COMPLETED' }, (err) => {
        e.status = 'FAILED'
        e.end = Date.now() / 1000
        e.failureCode = err.code || 'UnknownError'
        e.failureMessage = err.message
      })
    }
    return { ExportDescription: exportDescription(e) }
  }

  async function listExports (input) {
    members(input, [ 'TableArn', 'MaxResults', 'NextToken' ], '')
    const list = [ ...exports.values() ].filter((e) => !input.TableArn || e.tableArn === input.TableArn)
    return { ExportSummaries: list.map((e) => ({ ExportArn: e.arn, ExportStatus: e.status, ExportType: e.type })) }
  }

  // ---- imports ---------------------------------------------------------------------------------

  function importDescription (i) {
    const d = {
      ImportArn: i.arn, ImportStatus: i.status, TableArn: i.tableArn, TableId: i.tableId,
      S3BucketSource: i.input.S3BucketSource, ErrorCount: i.errors.length, CloudWatchLogGroupArn: i.logGroup,
      InputFormat: i.input.InputFormat, InputCompressionType: i.input.InputCompressionType || 'NONE',
      TableCreationParameters: i.input.TableCreationParameters, StartTime: i.start,
      // items sharing a key overwrite one another: the one left is counted, no error
      ProcessedSizeBytes: i.bytes, ProcessedItemCount: i.processed, ImportedItemCount: i.imported.size,
    }
    if (i.token) d.ClientToken = i.token
    if (i.status !== 'IN_PROGRESS') d.EndTime = i.end
    if (i.status === 'FAILED') { d.FailureCode = i.failureCode; d.FailureMessage = i.failureMessage }
    return d
  }

  function checkImportInput (input) {
    members(input, [ 'ClientToken', 'S3BucketSource', 'InputFormat', 'InputFormatOptions', 'InputCompressionType', 'TableCreationParameters' ], '')
    const src = required(input, 'S3BucketSource', 'object')
    members(src, [ 'S3BucketOwner', 'S3Bucket', 'S3KeyPrefix' ], 'S3BucketSource.')
    required(src, 'S3Bucket', 'string', 's3BucketSource.')
    required(input, 'InputFormat', 'string')
    oneOf(input, 'InputFormat', [ 'DYNAMODB_JSON', 'ION', 'CSV' ])
    oneOf(input, 'InputCompressionType', [ 'GZIP', 'ZSTD', 'NONE' ])
    if (input.InputFormat !== 'DYNAMODB_JSON') throw invalid('This test server imports DYNAMODB_JSON only')
    if (input.InputCompressionType === 'ZSTD') throw invalid('This test server reads GZIP or uncompressed input only')
    const t = required(input, 'TableCreationParameters', 'object')
    members(t, [ 'TableName', 'AttributeDefinitions', 'KeySchema', 'BillingMode', 'ProvisionedThroughput', 'OnDemandThroughput', 'SSESpecification', 'GlobalSecondaryIndexes' ], 'TableCreationParameters.')
    required(t, 'TableName', 'string', 'tableCreationParameters.')
    required(t, 'AttributeDefinitions', 'array', 'tableCreationParameters.')
    required(t, 'KeySchema', 'array', 'tableCreationParameters.')
    oneOf(t, 'BillingMode', [ 'PROVISIONED', 'PAY_PER_REQUEST' ], 'tableCreationParameters.')
    return t
  }

  async function importTable (input, stats) {
    const t = checkImportInput(input)
    const token = input.ClientToken
    if (token && byToken.has('import:' + token)) {
      const i = imports.get(byToken.get('import:' + token))
      if (!sameRequest(i.input, input)) throw new ApiError('ImportConflictException', `Import with ClientToken ${token} already exists with different parameters`)
      return { ImportTableDescription: importDescription(i) }
    }
    if (await describeTable(t.TableName)) throw new ApiError('ResourceInUseException', `Table already exists: ${t.TableName}`)
    const created = await ddb('CreateTable', t) // refused as CreateTable refuses
    const id = jobId()
    const i = {
      arn: `${created.TableDescription.TableArn}/import/${id}`, status: 'IN_PROGRESS', start: Date.now() / 1000, input, token,
      tableArn: created.TableDescription.TableArn, tableId: created.TableDescription.TableId, table: t,
      logGroup: `arn:aws:logs:${opts.region}:${ACCOUNT}:log-group:/aws-dynamodb/imports:*`,
      polls: opts.importPolls, errors: [], processed: 0, imported: new Set(), bytes: 0, faults: control.importLineFaults,
    }
    control.importLineFaults = 0
    imports.set(i.arn, i)
    if (token) byToken.set('import:' + token, i.arn)
    stats.imports++
    i.job = runImport(i).then(() => { i.done = true }, (err) => {
      i.done = true
      i.failed = { code: 'InternalServerError', message: String(err.message || err) }
    })
    return { ImportTableDescription: importDescription(i) }
  }

  async function waitActive (name) {
    for (;;) {
      const t = await describeTable(name)
      if (t && t.TableStatus === 'ACTIVE') return
      await sleep(100)
    }
  }

  // What a line must be: {"Item": {...}} with the table's key attributes of their types.
  function checkLine (line, keys) {
    let doc
    try { doc = JSON.parse(line) } catch (e) { return { error: `Unable to parse the line as JSON: ${e.message}` } }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || Object.keys(doc).length !== 1 || typeof doc.Item !== 'object' || doc.Item === null) {
      return { error: 'The line is not in the DynamoDB JSON import format: {"Item": {...}}' }
    }
    for (const k of keys) {
      const v = doc.Item[k.name]
      if (v === undefined) return { error: `One or more parameter values were invalid: Missing the key ${k.name} in the item` }
      if (typeof v !== 'object' || v === null || Object.keys(v)[0] !== k.type) return { error: `One or more parameter values were invalid: Type mismatch for key ${k.name} expected: ${k.type} actual: ${Object.keys(v || {})[0]}` }
    }
    return { item: doc.Item, key: JSON.stringify(keys.map((k) => doc.Item[k.name])) } // as keyOf
  }

  async function writeBatch (i, batch) {
    const name = i.table.TableName
    let pending = batch
    try {
      for (let n = 0; pending.length > 0; n++) {
        const out = await ddb('BatchWriteItem', { RequestItems: { [name]: pending.map((b) => ({ PutRequest: { Item: b.item } })) } })
        const left = (out.UnprocessedItems && out.UnprocessedItems[name]) || []
        const leftKeys = new Set(left.map((l) => i.keyOf(l.PutRequest.Item)))
        for (const b of pending) if (!leftKeys.has(b.key)) i.imported.add(b.key)
        pending = pending.filter((b) => leftKeys.has(b.key))
        if (left.length) await sleep(Math.min(1000, 20 * 2 ** n))
      }
    } catch (e) {
      if (e.type !== 'ValidationException') throw e
      for (const b of pending) { // one by one, to tell which item DynamoDB refuses
        try { await ddb('PutItem', { TableName: name, Item: b.item }); i.imported.add(b.key) } catch (pe) {
          if (pe.type !== 'ValidationException') throw pe
          i.errors.push({ itemS3Pointer: b.pointer, importArn: i.arn, errorMessages: [ pe.message ] })
        }
      }
    }
  }

  async function runImport (i) {
    const t = i.table
    const types = new Map(t.AttributeDefinitions.map((d) => [ d.AttributeName, d.AttributeType ]))
    const keys = t.KeySchema.map((k) => ({ name: k.AttributeName, type: types.get(k.AttributeName) }))
    i.keyOf = (item) => JSON.stringify(keys.map((k) => item[k.name]))
    const src = i.input.S3BucketSource
    await waitActive(t.TableName)
    const objects = (await s3list(src.S3Bucket, src.S3KeyPrefix || '')).filter((k) => !k.endsWith('/'))
    for (const key of objects) {
      let text
      try {
        const raw = await s3get(src.S3Bucket, key)
        text = (i.input.InputCompressionType === 'GZIP' ? zlib.gunzipSync(raw) : raw).toString('utf8')
      } catch (e) {
        i.errors.push({ itemS3Pointer: { s3Bucket: src.S3Bucket, s3Key: key }, importArn: i.arn, errorMessages: [ `Unable to read the object: ${e.message}` ] })
        continue
      }
      let batch = []
      const seen = new Set()
      const lines = text.split('\n')
      for (let n = 0; n < lines.length; n++) {
        if (lines[n].trim() === '') continue
        i.processed++
        i.bytes += Buffer.byteLength(lines[n]) + 1
        const pointer = { s3Bucket: src.S3Bucket, s3Key: key, itemIndex: n }
        const r = checkLine(lines[n], keys)
        if (!r.error && i.faults > 0) {
          i.faults--
          r.error = 'Internal failure writing the item (a fault of the test server, asked for)'
        }
        if (r.error) { i.errors.push({ itemS3Pointer: pointer, importArn: i.arn, errorMessages: [ r.error ] }); continue }
        if (seen.has(r.key) || batch.length === 25) { await writeBatch(i, batch); batch = []; seen.clear() }
        batch.push({ item: r.item, key: r.key, pointer })
        seen.add(r.key)
      }
      if (batch.length) await writeBatch(i, batch)
    }
  }

  async function describeImport (input) {
    members(input, [ 'ImportArn' ], '')
    const arn = required(input, 'ImportArn', 'string')
    const i = imports.get(arn)
    if (!i) throw new ApiError('ImportNotFoundException', `Import not found: ${arn}`)
    if (i.status === 'IN_PROGRESS' && --i.polls <= 0 && i.done) {
      i.end = Date.now() / 1000
      if (i.failed) { i.status = 'FAILED'; i.failureCode = i.failed.code; i.failureMessage = i.failed.message } else i.status = 'COMPLETED'
    }
    return { ImportTableDescription: importDescription(i) }
  }

  async function listImports (input) {
    members(input, [ 'TableArn', 'PageSize', 'NextToken' ], '')
    const list = [ ...imports.values() ].filter((i) => !input.TableArn || i.tableArn === input.TableArn)
    return { ImportSummaryList: list.map((i) => ({ ImportArn: i.arn, ImportStatus: i.status, TableArn: i.tableArn, S3BucketSource: i.input.S3BucketSource, CloudWatchLogGroupArn: i.logGroup, InputFormat: i.input.InputFormat, StartTime: i.start })) }
  }

  return {
    exportTable, describeExport, listExports, importTable, describeImport, listImports,
    updateContinuousBackups, describeContinuousBackups,
    forget: (name) => pitr.delete(name),
    backdate: (name, since) => { const p = pitr.get(name); if (p && p.enabled) p.since = since },
    importLogs: () => [ ...imports.values() ].map((i) => ({ importArn: i.arn, status: i.status, processed: i.processed, imported: i.imported.size, errors: i.errors })),
  }
}

module.exports = { context, ApiError }
