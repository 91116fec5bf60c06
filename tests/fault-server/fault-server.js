#!/usr/bin/env node
// Scripted fault-injecting HTTP/1.1 proxy for DynamoDB client tests (plain Node, no deps).
// Sits in front of a DynamoDB-compatible upstream (dynalite) on 127.0.0.1 and forwards every
// request, except when a fault rule fires. See README.md beside this file for the rule format.
//
// Usage: node fault-server.js --upstream http://127.0.0.1:PORT [--script faults.json]
//          [--port N] [--port-file FILE] [--seed N] [--keep-alive-ms MS] [--owner-pid PID]
//          [--auth http://127.0.0.1:CREDPORT [--auth-region R] [--auth-skew-ms MS]] [--quiet]
//          [--tls-cert CERT.pem --tls-key KEY.pem]   (serve HTTPS instead of HTTP)
// Prints "PORT <n>" as the first line on stdout once listening.
'use strict'

const http = require('http')
const https = require('https')
const fs = require('fs')
const crypto = require('crypto')
const path = require('path')
const zlib = require('zlib')
const sigv4 = require(path.join(__dirname, '..', 'cred-server', 'sigv4.js'))
const { serveOnLoopback } = require('./loopback')

// ---------------------------------------------------------------------------------------------
// CRC32 (IEEE 802.3, reflected, poly 0xEDB88320) as DynamoDB puts in x-amz-crc32.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = (c & 1) ? (0xEDB88320 ^ (c >>> 1)) : (c >>> 1)
    t[n] = c >>> 0
  }
  return t
})()

function crc32 (buf) {
  let c = 0xFFFFFFFF
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xFF] ^ (c >>> 8)
  return (c ^ 0xFFFFFFFF) >>> 0
}

// ---------------------------------------------------------------------------------------------
// Seeded PRNG so that probabilistic scripts replay identically with the same seed.

function mulberry32 (seed) {
  let a = seed >>> 0
  return function () {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// ---------------------------------------------------------------------------------------------
// Rules

const KINDS = [ 'throttle', 'unprocessed', 'http500', 'http503', 'drop', 'slow', 'badcrc', 'validation', 'padheaders', 'endlessbody', 'repeatkey', 'partitions' ]
// What a relayed answer keeps of the upstream's (the rest answer on their own).
const RELAYED = [ 'slow', 'badcrc', 'unprocessed', 'repeatkey', 'partitions' ]
const THROTTLE_TYPES = {
  ProvisionedThroughputExceededException: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  ThrottlingException: 'com.amazon.coral.availability#ThrottlingException',
  RequestLimitExceeded: 'com.amazonaws.dynamodb.v20120810#RequestLimitExceeded',
}
const THROTTLE_MESSAGES = {
  ProvisionedThroughputExceededException: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  ThrottlingException: 'Rate of requests exceeds the allowed throughput.',
  RequestLimitExceeded: 'Throughput exceeds the current throughput limit for your account. Please contact AWS Support at https://aws.amazon.com/support request a limit increase',
}
const DROP_WHEN = [ 'before', 'headers', 'mid', 'reset' ]

function isNonNegInt (v) { return Number.isInteger(v) && v >= 0 }

// Throws with a message naming the rule index and field, so a bad script fails loudly.
function compileRule (raw, index) {
  const where = `rule ${index}${raw && raw.id ? ` (${raw.id})` : ''}`
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where}: must be an object`)
  if (!KINDS.includes(raw.kind)) throw new Error(`${where}: kind must be one of ${KINDS.join(', ')}`)
  const r = { ...raw, id: raw.id != null ? String(raw.id) : `${raw.kind}#${index}`, seen: 0, fired: 0 }
  let ops = raw.op != null ? raw.op : raw.ops
  if (ops != null && !Array.isArray(ops)) ops = [ ops ]
  if (ops && !ops.every((o) => typeof o === 'string' && o)) throw new Error(`${where}: op must be a string or list of strings`)
  if (r.kind === 'unprocessed' || r.kind === 'partitions') {
    if (ops && !(ops.length === 1 && ops[0] === 'BatchWriteItem')) throw new Error(`${where}: ${r.kind} only applies to BatchWriteItem`)
    ops = [ 'BatchWriteItem' ]
  }
  r.ops = ops || null
  const triggers = [ 'probability', 'every', 'first', 'nth' ].filter((k) => raw[k] != null)
  if (triggers.length > 1) throw new Error(`${where}: use only one of probability, every, first, nth`)
  if (raw.probability != null && !(typeof raw.probability === 'number' && raw.probability >= 0 && raw.probability <= 1)) throw new Error(`${where}: probability must be in [0,1]`)
  if (raw.every != null && !(Number.isInteger(raw.every) && raw.every >= 1)) throw new Error(`${where}: every must be an integer >= 1`)
  if (raw.first != null && !isNonNegInt(raw.first)) throw new Error(`${where}: first must be an integer >= 0`)
  if (raw.nth != null && !(Array.isArray(raw.nth) && raw.nth.every((n) => Number.isInteger(n) && n >= 1))) throw new Error(`${where}: nth must be a list of integers >= 1`)
  if (raw.skip != null && !isNonNegInt(raw.skip)) throw new Error(`${where}: skip must be an integer >= 0`)
  if (raw.times != null && !isNonNegInt(raw.times)) throw new Error(`${where}: times must be an integer >= 0`)
  if (r.kind === 'partitions') {
    if (typeof raw.key !== 'string' || !raw.key) throw new Error(`${where}: key must name the partition key attribute`)
    r.partitions = raw.partitions != null ? raw.partitions : 4
    r.wcu = raw.wcu != null ? raw.wcu : 1000
    r.burst = raw.burst != null ? raw.burst : 1
    if (!(Number.isInteger(r.partitions) && r.partitions >= 1)) throw new Error(`${where}: partitions must be an integer >= 1`)
    if (!(typeof r.wcu === 'number' && r.wcu > 0)) throw new Error(`${where}: wcu must be a number > 0`)
    if (!(typeof r.burst === 'number' && r.burst > 0)) throw new Error(`${where}: burst must be a number > 0`)
    r.buckets = null // made on first use: [{ tokens, t }] per partition
  }
  if (r.kind === 'throttle' || r.kind === 'partitions') {
    r.error = raw.error || 'ProvisionedThroughputExceededException'
    if (!THROTTLE_TYPES[r.error]) throw new Error(`${where}: error must be one of ${Object.keys(THROTTLE_TYPES).join(', ')}`)
  }
  if (r.kind === 'unprocessed') {
    const sel = [ 'fraction', 'count', 'itemProbability' ].filter((k) => raw[k] != null)
    if (sel.length > 1) throw new Error(`${where}: use only one of fraction, count, itemProbability`)
    if (raw.fraction != null && !(typeof raw.fraction === 'number' && raw.fraction >= 0 && raw.fraction <= 1)) throw new Error(`${where}: fraction must be in [0,1]`)
    if (raw.itemProbability != null && !(typeof raw.itemProbability === 'number' && raw.itemProbability >= 0 && raw.itemProbability <= 1)) throw new Error(`${where}: itemProbability must be in [0,1]`)
    if (raw.count != null && !isNonNegInt(raw.count)) throw new Error(`${where}: count must be an integer >= 0`)
    if (!sel.length) r.fraction = 0.5
    r.pick = raw.pick || 'random'
    if (![ 'random', 'first', 'last' ].includes(r.pick)) throw new Error(`${where}: pick must be random, first or last`)
  }
  if (r.kind === 'drop') {
    r.when = raw.when || 'mid'
    if (!DROP_WHEN.includes(r.when)) throw new Error(`${where}: when must be one of ${DROP_WHEN.join(', ')}`)
  }
  if (r.kind === 'padheaders' || r.kind === 'endlessbody') {
    // 0: without end, until the client hangs up
    r.bytes = raw.bytes != null ? raw.bytes : 0
    if (!isNonNegInt(r.bytes)) throw new Error(`${where}: bytes must be an integer >= 0`)
  }
  if (r.kind === 'slow') {
    r.ms = raw.ms != null ? raw.ms : 1000
    if (!isNonNegInt(r.ms)) throw new Error(`${where}: ms must be an integer >= 0`)
    r.where = raw.where || 'after'
    if (![ 'before', 'after' ].includes(r.where)) throw new Error(`${where}: where must be before or after`)
  }
  // Whether the request still reaches the upstream (i.e. the write happens) before the fault.
  const forwardDefault = { throttle: false, validation: false, http500: false, http503: false, drop: r.when !== 'before' && r.when !== 'reset', slow: true, badcrc: true, unprocessed: true, padheaders: false, endlessbody: false, repeatkey: true }
  r.forward = raw.forward != null ? Boolean(raw.forward) : forwardDefault[r.kind]
  if (r.kind === 'drop' && (r.when === 'headers' || r.when === 'mid')) r.forward = true
  if (RELAYED.includes(r.kind)) r.forward = true
  return r
}

function compileRules (list) {
  if (!Array.isArray(list)) throw new Error('rules must be a list')
  return list.map(compileRule)
}

// The rule's own counter only advances for requests that reach it (no earlier rule fired),
// so "first: 2" on a later rule means the first two requests that rule gets to judge.
function ruleFires (rule, op, rand) {
  if (rule.ops && !rule.ops.includes(op)) return false
  if (rule.times != null && rule.fired >= rule.times) return false
  rule.seen++
  let n = rule.seen
  if (rule.skip) {
    if (n <= rule.skip) return false
    n -= rule.skip
  }
  if (rule.first != null) return n <= rule.first
  if (rule.every != null) return n % rule.every === 0
  if (rule.nth != null) return rule.nth.includes(n)
  if (rule.probability != null) return rand() < rule.probability
  return true
}

// ---------------------------------------------------------------------------------------------
// BatchWriteItem splitting

// The BatchWriteItem request in body, or null when it is none (malformed: the upstream judges it).
function parseBatch (body) {
  let req
  try {
    req = JSON.parse(body.toString('utf8'))
  } catch {
    return null
  }
  if (!req || typeof req !== 'object' || !req.RequestItems || typeof req.RequestItems !== 'object') return null
  return req
}

// Returns { forward: RequestItems | null, withheld: RequestItems, total, withheldCount } or null
// when the body is not a BatchWriteItem we can split (then the rule does not apply).
function splitBatch (body, rule, rand) {
  const req = parseBatch(body)
  if (!req) return null
  const flat = []
  for (const table of Object.keys(req.RequestItems)) {
    const list = req.RequestItems[table]
    if (!Array.isArray(list)) return null
    for (const wr of list) flat.push({ table, wr })
  }
  const n = flat.length
  if (!n) return null
  const withheldIdx = new Set()
  if (rule.itemProbability != null) {
    for (let i = 0; i < n; i++) if (rand() < rule.itemProbability) withheldIdx.add(i)
  } else {
    let k = rule.count != null ? rule.count : (rule.fraction > 0 ? Math.max(1, Math.round(rule.fraction * n)) : 0)
    k = Math.min(k, n)
    let order = [ ...Array(n).keys() ]
    if (rule.pick === 'last') order.reverse()
    else if (rule.pick === 'random') {
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1))
        const tmp = order[i]; order[i] = order[j]; order[j] = tmp
      }
    }
    order = order.slice(0, k)
    for (const i of order) withheldIdx.add(i)
  }
  if (!withheldIdx.size) return null
  // Null-prototype maps: a table named "__proto__" is legal in DynamoDB and must stay a key.
  const fwd = Object.create(null)
  const held = Object.create(null)
  flat.forEach(({ table, wr }, i) => {
    const dst = withheldIdx.has(i) ? held : fwd
    if (!dst[table]) dst[table] = []
    dst[table].push(wr)
  })
  const fwdCount = n - withheldIdx.size
  req.RequestItems = fwd
  return { request: req, forwardBody: fwdCount ? Buffer.from(JSON.stringify(req)) : null, withheld: held, total: n, withheldCount: withheldIdx.size }
}

// The size DynamoDB bills an item by (its "Item sizes" rules): attribute names plus values;
// a number about (significant digits / 2) + 1 bytes; lists and maps 3 bytes plus 1 per element.
function valueSize (v) {
  const t = Object.keys(v)[0]
  const x = v[t]
  switch (t) {
    case 'S': return Buffer.byteLength(x)
    case 'N': return Math.ceil(String(x).replace(/^[-+]/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length / 2) + 1
    case 'B': return Buffer.from(x, 'base64').length
    case 'BOOL': case 'NULL': return 1
    case 'SS': case 'NS': case 'BS': return x.reduce((n, m) => n + valueSize({ [t[0]]: m }), 0)
    case 'L': return 3 + x.length + x.reduce((n, e) => n + valueSize(e), 0)
    case 'M': return 3 + Object.keys(x).length + Object.keys(x).reduce((n, k) => n + Buffer.byteLength(k) + valueSize(x[k]), 0)
  }
  return 0
}

function itemWcu (wr) {
  const item = wr.PutRequest ? wr.PutRequest.Item : null
  if (!item) return 1
  const size = Object.keys(item).reduce((n, k) => n + Buffer.byteLength(k) + valueSize(item[k]), 0)
  return Math.max(1, Math.ceil(size / 1024))
}

// 'partitions': the table split into rule.partitions ranges of a hash of the partition key, each
// taking rule.wcu write units a second (a bucket of rule.burst seconds). A batch's items over
// their partition's rate are withheld, as DynamoDB returns them in UnprocessedItems. Same shape
// as splitBatch; null when every item fits.
function splitByPartition (body, rule, now) {
  const req = parseBatch(body)
  if (!req) return null
  if (!rule.buckets) rule.buckets = Array.from({ length: rule.partitions }, () => ({ tokens: rule.wcu * rule.burst, t: now }))
  const fwd = Object.create(null)
  const held = Object.create(null)
  let total = 0
  let withheldCount = 0
  for (const table of Object.keys(req.RequestItems)) {
    const list = req.RequestItems[table]
    if (!Array.isArray(list)) return null
    for (const wr of list) {
      const item = wr.PutRequest ? wr.PutRequest.Item : wr.DeleteRequest ? wr.DeleteRequest.Key : null
      const kv = item && item[rule.key]
      const h = crypto.createHash('md5').update(JSON.stringify(kv == null ? null : kv)).digest().readUInt32BE(0)
      const b = rule.buckets[Math.floor(h * rule.partitions / 4294967296)]
      b.tokens = Math.min(rule.wcu * rule.burst, b.tokens + (now - b.t) * rule.wcu / 1000)
      b.t = now
      const cost = itemWcu(wr)
      const dst = b.tokens >= cost ? fwd : held
      if (dst === fwd) b.tokens -= cost
      else withheldCount++
      total++
      if (!dst[table]) dst[table] = []
      dst[table].push(wr)
    }
  }
  if (!withheldCount) return null
  req.RequestItems = fwd
  return { request: req, forwardBody: total > withheldCount ? Buffer.from(JSON.stringify(req)) : null, withheld: held, total, withheldCount }
}

function countBatchItems (map) {
  let n = 0
  if (map && typeof map === 'object') for (const t of Object.keys(map)) if (Array.isArray(map[t])) n += map[t].length
  return n
}

// ---------------------------------------------------------------------------------------------
// Server state

function newStats () {
  return {
    requests: 0,
    byOperation: {},
    faults: Object.fromEntries(KINDS.map((k) => [ k, 0 ])),
    faultsByRule: {},
    forwarded: 0,
    upstreamErrors: 0,
    upstreamRetries: 0,
    responsesByStatus: {},
    gzipped: { responses: 0, bytesIn: 0, bytesOut: 0 },
    batchWrite: { requests: 0, itemsRequested: 0, itemsForwarded: 0, itemsUnprocessedInjected: 0, itemsUnprocessedUpstream: 0 },
    partitions: { throttledItems: 0, throttledRequests: 0 },
    connections: { opened: 0, current: 0 },
    auth: { verified: 0, missing: 0, malformed: 0, unknown: 0, expired: 0, badSignature: 0, skew: 0, scope: 0, keys: {} },
  }
}

function parseArgs (argv) {
  const o = { upstream: null, script: null, port: 0, portFile: null, seed: null, keepAliveMs: 30000, ownerPid: 0, quiet: false, auth: null, authRegion: 'us-east-1', authSkewMs: 0, tlsCert: null, tlsKey: null, gzipOver: null }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`option ${a} needs a value`)
      return argv[++i]
    }
    switch (a) {
      case '--upstream': o.upstream = next(); break
      case '--script': o.script = next(); break
      case '--port': o.port = Number(next()); break
      case '--port-file': o.portFile = next(); break
      case '--seed': o.seed = Number(next()); break
      case '--keep-alive-ms': o.keepAliveMs = Number(next()); break
      case '--owner-pid': o.ownerPid = Number(next()); break
      case '--quiet': o.quiet = true; break
      case '--auth': o.auth = next(); break
      case '--auth-region': o.authRegion = next(); break
      case '--auth-skew-ms': o.authSkewMs = Number(next()); break
      case '--tls-cert': o.tlsCert = next(); break
      case '--tls-key': o.tlsKey = next(); break
      case '--gzip-over': o.gzipOver = Number(next()); break
      default: throw new Error(`unknown option ${a}`)
    }
  }
  if (!o.upstream) throw new Error('--upstream http://127.0.0.1:PORT is required')
  if (!o.tlsCert !== !o.tlsKey) throw new Error('--tls-cert and --tls-key go together')
  const u = new URL(o.upstream)
  if (u.protocol !== 'http:') throw new Error('--upstream must be an http:// URL')
  // Test traffic must stay on this machine.
  if (!/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(u.hostname)) throw new Error('--upstream must be a loopback address')
  o.upstreamUrl = u
  if (!isNonNegInt(o.port) || o.port > 65535) throw new Error('bad --port')
  if (o.seed != null && !Number.isInteger(o.seed)) throw new Error('bad --seed')
  if (!isNonNegInt(o.keepAliveMs)) throw new Error('bad --keep-alive-ms')
  if (o.auth) {
    const a = new URL(o.auth)
    if (a.protocol !== 'http:' || !/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(a.hostname)) throw new Error('--auth must be a loopback http:// URL')
    o.authUrl = a
  }
  if (!Number.isInteger(o.authSkewMs)) throw new Error('bad --auth-skew-ms')
  return o
}

const HOP_BY_HOP = new Set([ 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect', 'content-length', 'host' ])

function main () {
  let opts
  let rules = []
  let seed = 1
  try {
    opts = parseArgs(process.argv.slice(2))
    if (opts.script) {
      const text = fs.readFileSync(opts.script, 'utf8')
      let doc
      try {
        doc = JSON.parse(text)
      } catch (e) {
        throw new Error(`${opts.script}: invalid JSON: ${e.message}`)
      }
      const list = Array.isArray(doc) ? doc : (doc.rules || [])
      if (!Array.isArray(doc) && doc.seed != null) seed = doc.seed
      try {
        rules = compileRules(list)
      } catch (e) {
        throw new Error(`${opts.script}: ${e.message}`)
      }
    }
    if (opts.seed != null) seed = opts.seed
  } catch (e) {
    process.stderr.write(`fault-server: ${e.message}\n`)
    process.exit(2)
  }

  let rand = mulberry32(seed)
  let stats = newStats()
  let events = []
  let seq = 0
  const MAX_EVENTS = 10000
  const MAX_BODY = 64 * 1024 * 1024
  const upstream = opts.upstreamUrl
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })

  const bump = (obj, key, by = 1) => { obj[key] = (obj[key] || 0) + by }
  const requestId = () => crypto.randomBytes(39).toString('base64').toUpperCase().replace(/[+/]/g, '0')
  const log = (msg) => { if (!opts.quiet) process.stderr.write(`fault-server: ${msg}\n`) }

  function record (ev) {
    events.push(ev)
    if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS)
  }

  // Does the request accept gzip (a gzip token whose q is not 0)?
  function acceptsGzip (req) {
    return String((req && req.headers['accept-encoding']) || '').split(',').some((t) => {
      const [ coding, ...params ] = t.trim().toLowerCase().split(';').map((x) => x.trim())
      return (coding === 'gzip' || coding === '*') && !params.some((p) => /^q=0(\.0*)?$/.test(p))
    })
  }

  // An answer without end, written on the raw socket as fast as the client reads it: a 200
  // whose header lines never end (padheaders) or whose chunked body never does (endlessbody),
  // until the client hangs up or rule.bytes (0: no limit) are sent, then the connection closes.
  function endless (sock, rule) {
    const line = 'X-Pad: ' + 'p'.repeat(1015) + '\r\n'
    const piece = rule.kind === 'padheaders' ? Buffer.from(line.repeat(64))
      : Buffer.from('10000\r\n' + ' '.repeat(65536) + '\r\n')
    let sent = 0
    let gone = false
    sock.on('error', () => { gone = true })
    sock.on('close', () => { gone = true })
    sock.write(rule.kind === 'padheaders' ? 'HTTP/1.1 200 OK\r\n'
      : 'HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nTransfer-Encoding: chunked\r\n\r\n')
    const pump = () => {
      while (!gone && (rule.bytes === 0 || sent < rule.bytes)) {
        sent += piece.length
        if (!sock.write(piece)) return sock.once('drain', pump)
      }
      if (!gone) sock.end(rule.kind === 'padheaders' ? '\r\n' : '0\r\n\r\n', () => sock.destroy())
    }
    pump()
  }

  // A Scan page that names the key it was asked from as its LastEvaluatedKey: the same page
  // for ever, as a broken service would send it. The first page (no ExclusiveStartKey) and the
  // last (no LastEvaluatedKey) pass unchanged.
  function repeatKey (reqBody, ubody, ev) {
    let q, a
    try {
      q = JSON.parse(reqBody.toString('utf8'))
      a = JSON.parse(ubody.toString('utf8'))
    } catch { return ubody }
    if (!q || !q.ExclusiveStartKey || !a || !a.LastEvaluatedKey) return ubody
    a.LastEvaluatedKey = q.ExclusiveStartKey
    ev.repeated = true
    return Buffer.from(JSON.stringify(a))
  }

  // Sends a complete response, adding the CRC header DynamoDB sends on every response. With
  // --gzip-over N, as DynamoDB does for a client that accepts gzip: a body over N bytes goes
  // gzipped, and the CRC is of the gzipped bytes.
  function send (res, status, headers, body, badCrc) {
    let buf = Buffer.isBuffer(body) ? body : Buffer.from(body)
    const h = { ...headers }
    if (opts.gzipOver != null && buf.length > opts.gzipOver && acceptsGzip(res.req)) {
      stats.gzipped.responses++
      stats.gzipped.bytesIn += buf.length
      buf = zlib.gzipSync(buf)
      stats.gzipped.bytesOut += buf.length
      h['content-encoding'] = 'gzip'
    }
    let crc = crc32(buf)
    if (badCrc) crc = (crc ^ 0x5A5A5A5A) >>> 0 || 1
    h['x-amz-crc32'] = String(crc)
    h['content-length'] = String(buf.length)
    if (!h['x-amzn-requestid']) h['x-amzn-requestid'] = requestId()
    bump(stats.responsesByStatus, String(status))
    res.writeHead(status, h)
    res.end(buf)
  }

  function sendJsonError (res, status, type, message) {
    const body = JSON.stringify(message != null ? { __type: type, message } : { __type: type })
    send(res, status, { 'content-type': 'application/x-amz-json-1.0' }, body, false)
  }

  // One upstream round trip; retries once when a pooled keep-alive socket turned out to have
  // been closed by the upstream (the request never reached it, so the retry cannot duplicate).
  function forward (req, body, cb, retried) {
    const headers = {}
    for (const [ k, v ] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v
    headers['content-length'] = String(body.length)
    headers.host = upstream.host
    const ureq = http.request({
      host: upstream.hostname.replace(/^\[|\]$/g, ''),
      port: upstream.port || 80,
      method: req.method,
      path: req.url,
      headers,
      agent,
    }, (ures) => {
      const chunks = []
      ures.on('data', (c) => chunks.push(c))
      ures.on('end', () => cb(null, ures.statusCode, ures.headers, Buffer.concat(chunks)))
      ures.on('error', (err) => cb(err))
    })
    ureq.on('error', (err) => {
      if (!retried && ureq.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
        stats.upstreamRetries++
        return forward(req, body, cb, true)
      }
      cb(err)
    })
    ureq.end(body)
  }

  function relayHeaders (h) {
    const out = {}
    for (const [ k, v ] of Object.entries(h)) if (!HOP_BY_HOP.has(k) && k !== 'x-amz-crc32' && k !== 'date') out[k] = v
    return out
  }

  function handleControl (req, res, body) {
    const url = new URL(req.url, 'http://x')
    const json = (status, obj) => {
      const b = JSON.stringify(obj, null, 1)
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b) })
      res.end(b)
    }
    if (url.pathname === '/__health') return json(200, { ok: true })
    if (url.pathname === '/__stats' && req.method === 'GET') return json(200, stats)
    if (url.pathname === '/__events' && req.method === 'GET') {
      const since = Number(url.searchParams.get('since') || 0)
      return json(200, events.filter((e) => e.seq > since))
    }
    if (url.pathname === '/__control' && req.method === 'GET') {
      return json(200, { seed, rules: rules.map((r) => ({ ...r })) })
    }
    if (url.pathname === '/__control' && req.method === 'POST') {
      let cmd
      try {
        cmd = JSON.parse(body.toString('utf8') || '{}')
        if (!cmd || typeof cmd !== 'object' || Array.isArray(cmd)) throw new Error('body must be a JSON object')
        // Validate everything before changing anything, so a bad command leaves state as it was.
        const replaced = cmd.rules != null ? compileRules(cmd.rules) : null
        const added = cmd.add != null ? compileRules(cmd.add) : null
        if (cmd.seed != null && !Number.isInteger(cmd.seed)) throw new Error('seed must be an integer')
        if (cmd.clear) rules = []
        if (replaced) rules = replaced
        if (added) {
          const base = rules.length
          added.forEach((r, i) => { if (cmd.add[i].id == null) r.id = `${r.kind}#${base + i}` })
          rules = rules.concat(added)
        }
        if (cmd.seed != null) { seed = cmd.seed; rand = mulberry32(seed) }
        if (cmd.resetCounters) for (const r of rules) { r.seen = 0; r.fired = 0 }
        if (cmd.resetStats) { stats = newStats(); events = []; stats.connections.current = server._ddbOpen }
      } catch (e) {
        return json(400, { error: e.message })
      }
      return json(200, { ok: true, seed, rules: rules.map((r) => ({ ...r })) })
    }
    return json(404, { error: `unknown control path ${req.method} ${url.pathname}` })
  }

  // ---- signature check (--auth) --------------------------------------------------------
  // DynamoDB verifies SigV4 and the key's validity before anything else; so does this, with
  // the keys the scripted credential server issued (GET <auth>/__keys/<id>), its clock
  // optionally running --auth-skew-ms ahead. A refused request never reaches the upstream.
  const keyCache = new Map()
  function lookupKey (akid, cb) {
    if (keyCache.has(akid)) return cb(keyCache.get(akid))
    http.get({ host: opts.authUrl.hostname, port: opts.authUrl.port, path: `/__keys/${encodeURIComponent(akid)}`, agent }, (kr) => {
      const chunks = []
      kr.on('data', (c) => chunks.push(c))
      kr.on('end', () => {
        let k = null
        if (kr.statusCode === 200) {
          try { k = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch {}
        }
        if (k) keyCache.set(akid, k)
        cb(k)
      })
    }).on('error', () => cb(null))
  }

  function checkAuth (req, body, cb) {
    const a = sigv4.parseAuthorization(req.headers.authorization)
    const r = { method: req.method, path: req.url.split('?')[0], query: req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '', rawHeaders: req.rawHeaders, body }
    const refuse = (stat, type, message) => { stats.auth[stat]++; cb({ type, message }) }
    if (!req.headers.authorization) return refuse('missing', 'com.amazon.coral.service#MissingAuthenticationTokenException', 'Request is missing Authentication Token')
    if (!a) return refuse('malformed', 'com.amazon.coral.service#IncompleteSignatureException', 'Authorization header requires \'Credential\' parameter.')
    lookupKey(a.akid, (k) => {
      const now = Date.now() + opts.authSkewMs
      const v = sigv4.verify(r, () => (k ? { secret: k.secretAccessKey, token: k.sessionToken || undefined } : null), { region: opts.authRegion, service: 'dynamodb', now: Date.now() })
      if (!v.ok) {
        switch (v.reason) {
          case 'unknown-key':
          case 'token-mismatch': return refuse('unknown', 'com.amazon.coral.service#UnrecognizedClientException', 'The security token included in the request is invalid.')
          case 'skew': return refuse('skew', 'com.amazon.coral.service#InvalidSignatureException', `Signature expired: ${v.amzDate} is now earlier than the allowed time.`)
          case 'scope': return refuse('scope', 'com.amazon.coral.service#InvalidSignatureException', `Credential should be scoped to a valid region, not '${v.auth.region}'. `)
          case 'malformed': return refuse('malformed', 'com.amazon.coral.service#IncompleteSignatureException', 'Authorization header requires a valid X-Amz-Date.')
          default: return refuse('badSignature', 'com.amazon.coral.service#InvalidSignatureException', 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.')
        }
      }
      if (k.validUntil != null && now >= k.validUntil) return refuse('expired', 'com.amazon.coral.service#ExpiredTokenException', 'The security token included in the request is expired')
      stats.auth.verified++
      bump(stats.auth.keys, a.akid)
      cb(null)
    })
  }

  function handleDynamo (req, res, body) {
    const target = String(req.headers['x-amz-target'] || '')
    const op = target.includes('.') ? target.slice(target.lastIndexOf('.') + 1) : (target || s3Op(req))
    const ev = { seq: ++seq, op, fault: null, rule: null, status: null, t: Date.now() }
    record(ev)
    stats.requests++
    bump(stats.byOperation, op)

    let rule = null
    let split = null
    for (const r of rules) {
      if (!ruleFires(r, op, rand)) continue
      if (r.kind === 'unprocessed') {
        split = splitBatch(body, r, rand)
        if (!split) continue // not splittable (e.g. malformed): let the upstream judge it
      }
      if (r.kind === 'partitions') {
        split = splitByPartition(body, r, Date.now())
        if (!split) continue // every item within its partition's rate
        stats.partitions.throttledItems += split.withheldCount
      }
      rule = r
      break
    }
    if (rule) {
      rule.fired++
      stats.faults[rule.kind]++
      bump(stats.faultsByRule, rule.id)
      ev.fault = rule.kind
      ev.rule = rule.id
    }

    const finish = (status) => { ev.status = status; ev.ms = Date.now() - ev.t }
    const isBatch = op === 'BatchWriteItem'
    let requestedItems = 0
    if (isBatch) {
      stats.batchWrite.requests++
      try {
        requestedItems = countBatchItems(JSON.parse(body.toString('utf8')).RequestItems)
      } catch {}
      stats.batchWrite.itemsRequested += requestedItems
    }

    const synth = () => {
      switch (rule.kind) {
        case 'throttle':
          finish(400)
          return sendJsonError(res, 400, THROTTLE_TYPES[rule.error], rule.message || THROTTLE_MESSAGES[rule.error])
        case 'validation':
          finish(400)
          return sendJsonError(res, 400, rule.type || 'com.amazon.coral.validate#ValidationException', rule.message || 'Injected validation error (fault-server)')
        case 'http500':
          finish(500)
          return sendJsonError(res, 500, 'com.amazonaws.dynamodb.v20120810#InternalServerError', rule.message || 'Internal server error')
        case 'http503':
          finish(503)
          return sendJsonError(res, 503, 'com.amazon.coral.availability#ServiceUnavailableException', rule.message || 'Service unavailable')
        case 'drop': // when: before / reset
          finish('dropped')
          if (rule.when === 'reset' && typeof req.socket.resetAndDestroy === 'function') return req.socket.resetAndDestroy()
          return req.socket.destroy()
        case 'padheaders':
        case 'endlessbody':
          finish('endless')
          return endless(req.socket, rule)
      }
    }

    if (rule && !rule.forward) return synth()

    // Everything below talks to the upstream.
    const respond = (status, headers, ubody) => {
      if (rule && rule.kind === 'drop' && (rule.when === 'before' || rule.when === 'reset')) {
        return synth() // forward:true: the write happened, the client never hears of it
      }
      if (rule && rule.kind === 'drop') {
        finish('dropped')
        res.writeHead(status, { ...headers, 'content-length': String(ubody.length), 'x-amz-crc32': String(crc32(ubody)) })
        const part = rule.when === 'headers' ? Buffer.alloc(0) : ubody.subarray(0, Math.floor(ubody.length / 2))
        // flushHeaders + write callback: the bytes reach the kernel before the socket dies.
        res.flushHeaders()
        return res.write(part, () => res.socket && res.socket.destroy())
      }
      if (rule && !RELAYED.includes(rule.kind)) {
        return synth() // a forward:true error rule: the write happened, the client sees an error
      }
      finish(status)
      send(res, status, headers, ubody, rule && rule.kind === 'badcrc')
    }

    const afterDelay = (fn) => (rule && rule.kind === 'slow' && rule.where === 'after') ? setTimeout(fn, rule.ms) : fn()

    const go = () => {
      if (split && !split.forwardBody && rule.kind === 'partitions') {
        // DynamoDB: "If none of the items can be processed due to insufficient provisioned
        // throughput on all of the tables in the request, then BatchWriteItem returns a
        // ProvisionedThroughputExceededException."
        stats.partitions.throttledRequests++
        finish(400)
        return sendJsonError(res, 400, THROTTLE_TYPES[rule.error], rule.message || THROTTLE_MESSAGES[rule.error])
      }
      if (split && !split.forwardBody) {
        // Every item withheld: nothing reaches the upstream.
        stats.batchWrite.itemsUnprocessedInjected += split.withheldCount
        ev.unprocessed = split.withheldCount
        ev.forwardedItems = 0
        return respond(200, { 'content-type': 'application/x-amz-json-1.0' }, Buffer.from(JSON.stringify({ UnprocessedItems: split.withheld })))
      }
      const fbody = split ? split.forwardBody : body
      stats.forwarded++
      forward(req, fbody, (err, status, uheaders, ubody) => {
        if (err) {
          stats.upstreamErrors++
          log(`upstream error: ${err.message}`)
          finish(502)
          return sendJsonError(res, 502, 'FaultServer#UpstreamError', `upstream ${upstream.host}: ${err.message}`)
        }
        const headers = relayHeaders(uheaders)
        let out = ubody
        if (rule && rule.kind === 'repeatkey' && status === 200) out = repeatKey(body, ubody, ev)
        if (isBatch && status === 200) {
          let parsed = null
          try { parsed = JSON.parse(ubody.toString('utf8')) } catch {}
          if (parsed && typeof parsed === 'object') {
            const upUnp = countBatchItems(parsed.UnprocessedItems)
            stats.batchWrite.itemsUnprocessedUpstream += upUnp
            stats.batchWrite.itemsForwarded += split ? split.total - split.withheldCount : requestedItems
            ev.forwardedItems = split ? split.total - split.withheldCount : requestedItems
            if (split) {
              const merged = Object.create(null)
              const src = parsed.UnprocessedItems && typeof parsed.UnprocessedItems === 'object' ? parsed.UnprocessedItems : {}
              for (const t of Object.keys(src)) merged[t] = src[t].slice()
              for (const t of Object.keys(split.withheld)) merged[t] = (merged[t] || []).concat(split.withheld[t])
              parsed.UnprocessedItems = merged
              out = Buffer.from(JSON.stringify(parsed))
              stats.batchWrite.itemsUnprocessedInjected += split.withheldCount
              ev.unprocessed = split.withheldCount
            }
          }
        }
        afterDelay(() => respond(status, headers, out))
      })
    }

    if (rule && rule.kind === 'slow' && rule.where === 'before') setTimeout(go, rule.ms)
    else go()
  }

  const handler = (req, res) => {
    const chunks = []
    let size = 0
    let tooBig = false
    req.on('data', (c) => {
      size += c.length
      if (size > MAX_BODY) tooBig = true
      else chunks.push(c)
    })
    req.on('end', () => {
      if (tooBig) {
        res.writeHead(413, { 'content-length': '0' })
        return res.end()
      }
      const body = Buffer.concat(chunks)
      if (req.url.startsWith('/__')) return handleControl(req, res, body)
      if (!opts.authUrl) return handleDynamo(req, res, body)
      checkAuth(req, body, (refused) => {
        if (!refused) return handleDynamo(req, res, body)
        const target = String(req.headers['x-amz-target'] || '')
        stats.requests++
        record({ seq: ++seq, op: target.slice(target.lastIndexOf('.') + 1) || '(none)', fault: 'auth', rule: refused.type.split('#')[1], status: 400, t: Date.now(), ms: 0 })
        sendJsonError(res, 400, refused.type, refused.message)
      })
    })
  }
  const server = opts.tlsCert
    ? https.createServer({ cert: fs.readFileSync(opts.tlsCert), key: fs.readFileSync(opts.tlsKey) }, handler)
    : http.createServer(handler)
  server._ddbOpen = 0
  server.on('connection', (sock) => {
    stats.connections.opened++
    server._ddbOpen++
    stats.connections.current = server._ddbOpen
    sock.on('close', () => { server._ddbOpen--; stats.connections.current = server._ddbOpen })
  })
  server.keepAliveTimeout = opts.keepAliveMs
  server.headersTimeout = opts.keepAliveMs + 5000
  server.requestTimeout = 0
  serveOnLoopback(server, opts, 'fault-server',
    () => `upstream ${upstream.href}, ${rules.length} rule(s), seed ${seed}`)
}

// S3 requests have no X-Amz-Target: name them as S3's API does, so rules can pick them.
function s3Op (req) {
  const u = new URL(req.url, 'http://x')
  const q = u.searchParams
  const hasKey = u.pathname.split('/').filter((x) => x !== '').length > 1
  if (!hasKey) return req.method === 'GET' && q.has('list-type') ? 'ListObjectsV2' : '(none)'
  if (req.method === 'POST') return q.has('uploads') ? 'CreateMultipartUpload' : 'CompleteMultipartUpload'
  if (req.method === 'PUT') return q.has('partNumber') ? 'UploadPart' : 'PutObject'
  return { GET: 'GetObject', HEAD: 'HeadObject', DELETE: q.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject' }[req.method] || '(none)'
}

if (require.main === module) main()

module.exports = { crc32, compileRule, ruleFires, splitBatch, mulberry32 }
