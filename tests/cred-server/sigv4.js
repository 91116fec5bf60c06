// AWS Signature Version 4, Authorization-header form, on the server side: recomputes the
// signature of a received request and says whether it matches. Used by the scripted STS
// (cred-server.js) and by the fault server's signature check. Its canonicalization follows the
// same rules as src/sigv4.c, and `node sigv4.js --vectors DIR` proves it against every case of
// the shared aws-c-auth suite (../shared/testdata/sigv4/v4): each signed request is parsed,
// verified with the case's credentials, and its canonical request compared byte for byte.
'use strict'

const crypto = require('crypto')
const fs = require('fs')
const path = require('path')

const UNRESERVED = /[A-Za-z0-9\-_.~]/

// Percent-encodes every byte outside the unreserved set (and '/' when keepSlash).
function uriEncode (buf, keepSlash) {
  let out = ''
  for (const b of buf) {
    const c = String.fromCharCode(b)
    if ((b < 0x80 && UNRESERVED.test(c)) || (keepSlash && c === '/')) out += c
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}

function percentDecode (s) {
  const bytes = []
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16))
      i += 2
    } else {
      for (const b of Buffer.from(s[i], 'latin1')) bytes.push(b)
    }
  }
  return Buffer.from(bytes)
}

// "." and ".." removed, runs of '/' collapsed, a trailing '/' kept.
function normalizePath (p) {
  const trailing = p.length > 1 && p.endsWith('/')
  const out = []
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue
    if (seg === '..') out.pop()
    else out.push(seg)
  }
  let r = '/' + out.join('/')
  if (trailing && r !== '/') r += '/'
  return r
}

function canonicalQuery (raw) {
  if (!raw) return ''
  const pairs = raw.split('&').filter((p) => p !== '').map((p) => {
    const eq = p.indexOf('=')
    const k = eq < 0 ? p : p.slice(0, eq)
    const v = eq < 0 ? '' : p.slice(eq + 1)
    return [ uriEncode(percentDecode(k), false), uriEncode(percentDecode(v), false) ]
  })
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
  return pairs.map(([ k, v ]) => `${k}=${v}`).join('&')
}

// rawHeaders: [name, value, name, value, ...] in wire order (Node's req.rawHeaders).
function canonicalHeaders (rawHeaders, signed) {
  const map = new Map()
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase()
    const value = String(rawHeaders[i + 1]).trim().replace(/\s+/g, ' ')
    if (!map.has(name)) map.set(name, [])
    map.get(name).push(value)
  }
  return signed.map((n) => `${n}:${(map.get(n) || []).join(',')}\n`).join('')
}

function parseAuthorization (h) {
  const m = /^AWS4-HMAC-SHA256 (.*)$/.exec(h || '')
  if (!m) return null
  const out = {}
  for (const part of m[1].split(',')) {
    const eq = part.indexOf('=')
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim()
  }
  if (!out.Credential || !out.SignedHeaders || !out.Signature) return null
  const cred = out.Credential.split('/')
  if (cred.length !== 5 || cred[4] !== 'aws4_request') return null
  return { akid: cred[0], date: cred[1], region: cred[2], service: cred[3], signedHeaders: out.SignedHeaders.split(';'), signature: out.Signature }
}

function hmac (key, s) { return crypto.createHmac('sha256', key).update(s).digest() }
function sha256hex (b) { return crypto.createHash('sha256').update(b).digest('hex') }

function header (rawHeaders, name) {
  const vals = []
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) vals.push(rawHeaders[i + 1])
  return vals.length ? vals.join(',') : undefined
}

// The canonical request of a received request (method, raw path and query, raw headers,
// body bytes), given the parsed Authorization header.
// s3: the path is signed as sent (S3 keys are encoded once, never twice).
function canonicalRequest (r, auth, normalize, s3) {
  const rawPath = r.path || '/'
  const p = normalize ? normalizePath(rawPath) : rawPath
  const payloadHash = header(r.rawHeaders, 'x-amz-content-sha256') || sha256hex(r.body || Buffer.alloc(0))
  return [
    r.method,
    s3 ? p : uriEncode(Buffer.from(p, 'latin1'), true),
    canonicalQuery(r.query || ''),
    canonicalHeaders(r.rawHeaders, auth.signedHeaders),
    auth.signedHeaders.join(';'),
    payloadHash,
  ].join('\n')
}

function parseAmzDate (s) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s || '')
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : NaN
}

// Verifies a request. lookup(akid) -> { secret, token? } or null. Returns
// { ok: true, akid, auth } or { ok: false, reason, auth? } where reason is one of
// 'missing', 'malformed', 'unknown-key', 'token-mismatch', 'scope', 'skew', 'signature'.
// opts: { normalize (default true), now (ms), maxSkewMs (default 5 min), region, service,
// s3 (the path signed as sent) }.
function verify (r, lookup, opts = {}) {
  const authHeader = header(r.rawHeaders, 'authorization')
  if (!authHeader) return { ok: false, reason: 'missing' }
  const auth = parseAuthorization(authHeader)
  if (!auth) return { ok: false, reason: 'malformed' }
  const amzDate = header(r.rawHeaders, 'x-amz-date')
  const when = parseAmzDate(amzDate)
  if (isNaN(when) || amzDate.slice(0, 8) !== auth.date) return { ok: false, reason: 'malformed', auth }
  if (!auth.signedHeaders.includes('host')) return { ok: false, reason: 'malformed', auth }
  if ((opts.region && auth.region !== opts.region) || (opts.service && auth.service !== opts.service)) return { ok: false, reason: 'scope', auth }
  const now = opts.now != null ? opts.now : Date.now()
  if (Math.abs(now - when) > (opts.maxSkewMs != null ? opts.maxSkewMs : 5 * 60 * 1000)) return { ok: false, reason: 'skew', auth, amzDate }
  const key = lookup(auth.akid)
  if (!key) return { ok: false, reason: 'unknown-key', auth }
  const canonical = canonicalRequest(r, auth, opts.normalize !== false, opts.s3)
  const stringToSign = [ 'AWS4-HMAC-SHA256', amzDate, `${auth.date}/${auth.region}/${auth.service}/aws4_request`, sha256hex(canonical) ].join('\n')
  let k = hmac('AWS4' + key.secret, auth.date)
  k = hmac(k, auth.region)
  k = hmac(k, auth.service)
  k = hmac(k, 'aws4_request')
  const expected = hmac(k, stringToSign).toString('hex')
  const sigOk = expected.length === auth.signature.length &&
    crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(auth.signature))
  if (!sigOk) return { ok: false, reason: 'signature', auth, canonical, stringToSign }
  // The session token must be the one issued with the key (signed or not).
  const token = header(r.rawHeaders, 'x-amz-security-token')
  if ((key.token || token) && key.token !== token) return { ok: false, reason: 'token-mismatch', auth }
  return { ok: true, akid: auth.akid, auth, canonical, stringToSign }
}

// ---- self-test against the shared vectors -----------------------------------------------------

function parseRawRequest (buf) {
  const text = buf.toString('latin1')
  const headEnd = text.indexOf('\n\n')
  const head = headEnd < 0 ? text : text.slice(0, headEnd)
  const body = headEnd < 0 ? Buffer.alloc(0) : Buffer.from(text.slice(headEnd + 2), 'latin1')
  const lines = head.split('\n')
  const first = lines.shift()
  const sp = first.indexOf(' ')
  const method = first.slice(0, sp)
  const target = first.slice(sp + 1, first.lastIndexOf(' HTTP/'))
  const q = target.indexOf('?')
  const rawHeaders = []
  for (const line of lines) {
    if (/^[ \t]/.test(line) && rawHeaders.length) {
      rawHeaders[rawHeaders.length - 1] += ' ' + line.trim() // a folded value
      continue
    }
    const c = line.indexOf(':')
    rawHeaders.push(line.slice(0, c), line.slice(c + 1))
  }
  return { method, path: q < 0 ? target : target.slice(0, q), query: q < 0 ? '' : target.slice(q + 1), rawHeaders, body }
}

function selftest (dir) {
  let passed = 0
  const failed = []
  for (const name of fs.readdirSync(dir).sort()) {
    const d = path.join(dir, name)
    if (!fs.existsSync(path.join(d, 'header-signed-request.txt'))) continue
    const ctx = JSON.parse(fs.readFileSync(path.join(d, 'context.json'), 'utf8'))
    const req = parseRawRequest(fs.readFileSync(path.join(d, 'header-signed-request.txt')))
    const wantCanonical = fs.readFileSync(path.join(d, 'header-canonical-request.txt'), 'latin1')
    const creds = ctx.credentials
    const lookup = (akid) => akid === creds.access_key_id
      ? { secret: creds.secret_access_key, token: header(req.rawHeaders, 'x-amz-security-token') }
      : null
    const res = verify(req, lookup, { normalize: ctx.normalize !== false, now: Date.parse(ctx.timestamp) })
    // Tampering must be caught too: a changed body or header breaks the signature.
    const tampered = { ...req, rawHeaders: req.rawHeaders.map((v, i) => (i % 2 && req.rawHeaders[i - 1].toLowerCase() === 'host' ? 'evil.example.com' : v)) }
    const bad = verify(tampered, lookup, { normalize: ctx.normalize !== false, now: Date.parse(ctx.timestamp) })
    const wrongKey = verify(req, () => ({ secret: creds.secret_access_key + 'x' }), { normalize: ctx.normalize !== false, now: Date.parse(ctx.timestamp) })
    if (res.ok && res.canonical === wantCanonical && !bad.ok && bad.reason === 'signature' && !wrongKey.ok) passed++
    else failed.push(`${name}: ${res.ok ? (res.canonical !== wantCanonical ? 'canonical request differs' : 'tampering not detected') : res.reason}`)
  }
  return { passed, failed }
}

if (require.main === module) {
  const i = process.argv.indexOf('--vectors')
  if (i < 0) {
    process.stderr.write('usage: node sigv4.js --vectors DIR\n')
    process.exit(2)
  }
  const { passed, failed } = selftest(process.argv[i + 1])
  for (const f of failed) process.stdout.write(`FAIL ${f}\n`)
  process.stdout.write(`${passed} vectors verified, ${failed.length} failed\n`)
  process.exit(failed.length || passed === 0 ? 1 : 0)
}

module.exports = { verify, canonicalRequest, parseAuthorization, uriEncode, normalizePath, header, selftest }
