// A local S3 for the integration tests: s3rver (npm, pinned) stores the objects, and this front
// holds it to what S3 itself checks and s3rver 3.7 does not: SigV4 signatures (s3rver only looks
// at the access key id), the payload hash in x-amz-content-sha256 and Content-MD5, If-Match on
// GET/HEAD (412 PreconditionFailed), the multipart rules (NoSuchUpload, parts in ascending order
// with their ETags, EntityTooSmall under 5 MiB but for the last part, AbortMultipartUpload,
// ListMultipartUploads), and a bucket's region (a request signed for another region gets
// 301 PermanentRedirect with x-amz-bucket-region, as S3 answers). Bound to 127.0.0.1 only.
//
//   node tests/s3-server/s3-server.js --dir DIR [--key AKID:SECRET]... [--bucket NAME[:REGION]]...
//        [--region us-east-1] [--port 0] [--port-file F] [--owner-pid PID] [--quiet]
//
// Control (paths starting with /__, unsigned): GET /__info ({"s3rverPort", "upstream"}),
// POST /__control {"upstream": URL} (forward to URL instead of s3rver, e.g. the fault server in
// front of it), {"completeErrors": N} (the next N CompleteMultipartUpload answer 200 with an
// InternalError body, as S3 may), {"completeDelayMs": N} (the next CompleteMultipartUpload is done
// at once but answered N ms later, as a slow network can: stats.completedUnanswered counts those
// done and not yet answered), {"partDelayMs": N} (every UploadPart answered N ms after it is
// stored; 0 ends it; stats.partsHeld counts those stored and not yet answered, partsAnswered those
// answered), {"partHold": true} (every UploadPart is stored and not answered until {"partHold": false},
// which answers those held: a hold that cannot run out on a slow machine), {"partDelayKey": S}
// (only the parts of keys that hold S are delayed or held; "" for all), {"deleteNoSuchBucket": N} (the next N
// DeleteObject answer 404 NoSuchBucket, as S3 does once the bucket is deleted), GET /__uploads (open uploads),
// GET /__stats.
'use strict'

const crypto = require('crypto')
const http = require('http')
const path = require('path')
const sigv4 = require(path.join(__dirname, '..', 'cred-server', 'sigv4.js'))
const { serveOnLoopback, withControl } = require(path.join(__dirname, '..', 'fault-server', 'loopback.js'))

const MIN_PART = 5 * 1024 * 1024

function parseArgs (argv) {
  const o = { dir: null, keys: new Map(), buckets: [], region: 'us-east-1', port: 0, portFile: null, ownerPid: 0, quiet: false }
  for (let i = 2; i < argv.length; i++) {
    const next = () => argv[++i]
    switch (argv[i]) {
      case '--dir': o.dir = next(); break
      case '--key': { const [ k, s ] = next().split(':'); o.keys.set(k, { secret: s }); break }
      case '--bucket': { const [ b, r ] = next().split(':'); o.buckets.push({ name: b, region: r }); break }
      case '--region': o.region = next(); break
      case '--port': o.port = Number(next()); break
      case '--port-file': o.portFile = next(); break
      case '--owner-pid': o.ownerPid = Number(next()); break
      case '--quiet': o.quiet = true; break
      default: process.stderr.write(`s3-server: unknown option ${argv[i]}\n`); process.exit(2)
    }
  }
  if (!o.dir) { process.stderr.write('s3-server: --dir is required\n'); process.exit(2) }
  return o
}

function xmlEscape (s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

function s3Error (res, status, code, message, extra = {}, headers = {}) {
  let body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message>`
  for (const [ k, v ] of Object.entries(extra)) body += `<${k}>${xmlEscape(v)}</${k}>`
  body += `<RequestId>${crypto.randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body), ...headers })
  res.end(res.req.method === 'HEAD' ? undefined : body)
}

async function main () {
  const opts = parseArgs(process.argv)
  const S3rver = require('s3rver')
  const store = new S3rver({
    port: 0, address: '127.0.0.1', directory: opts.dir, silent: true,
    configureBuckets: opts.buckets.map((b) => ({ name: b.name })),
  })
  const addr = await store.run()
  let upstream = new URL(`http://127.0.0.1:${addr.port}`)
  const regions = new Map(opts.buckets.map((b) => [ b.name, b.region || opts.region ]))
  const uploads = new Map() // uploadId -> { bucket, key, parts: Map(num -> {etag, size}), initiated }
  const stats = { requests: 0, verified: 0, refused: {}, byOp: {}, completedUnanswered: 0, partsHeld: 0, partsAnswered: 0 }
  let completeErrors = 0
  let deleteNoSuchBucket = 0
  let completeDelayMs = 0
  let partDelayMs = 0
  let partDelayKey = ''
  let partHold = false
  let held = []
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
  const bump = (o, k) => { o[k] = (o[k] || 0) + 1 }

  function opName (method, bucket, key, q) {
    if (!bucket) return 'ListBuckets'
    if (!key) {
      if (method === 'GET' && q.has('uploads')) return 'ListMultipartUploads'
      if (method === 'GET') return 'ListObjects'
      return method + 'Bucket'
    }
    if (method === 'POST' && q.has('uploads')) return 'CreateMultipartUpload'
    if (method === 'POST' && q.has('uploadId')) return 'CompleteMultipartUpload'
    if (method === 'PUT' && q.has('uploadId')) return 'UploadPart'
    if (method === 'DELETE' && q.has('uploadId')) return 'AbortMultipartUpload'
    return { GET: 'GetObject', HEAD: 'HeadObject', PUT: 'PutObject', DELETE: 'DeleteObject' }[method] || method
  }

  // Forwards to the store (or the configured upstream), streaming the answer back; an answer
  // cut short upstream is cut short here too.
  function forward (req, res, body, onDone) {
    const headers = {}
    for (const [ k, v ] of Object.entries(req.headers)) {
      if ([ 'authorization', 'connection', 'keep-alive', 'transfer-encoding', 'expect' ].includes(k)) continue
      headers[k] = v
    }
    headers['content-length'] = String(body.length)
    headers.host = upstream.host
    const ureq = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (ures) => {
      if (onDone) {
        const chunks = []
        ures.on('data', (c) => chunks.push(c))
        ures.on('end', () => onDone(ures, Buffer.concat(chunks)))
        ures.on('aborted', () => res.socket && res.socket.destroy())
        return
      }
      res.writeHead(ures.statusCode, ures.headers)
      ures.pipe(res)
      ures.on('aborted', () => res.socket && res.socket.destroy())
      ures.on('error', () => res.socket && res.socket.destroy())
    })
    ureq.on('error', (err) => s3Error(res, 502, 'InternalError', `upstream: ${err.message}`))
    ureq.end(body)
  }

  function head (bucket, key, cb) {
    const p = '/' + bucket + '/' + key.split('/').map(encodeURIComponent).join('/')
    http.request({ host: upstream.hostname, port: upstream.port, method: 'HEAD', path: p, agent }, (r) => {
      r.resume()
      r.on('end', () => cb(r.statusCode, r.headers.etag))
    }).on('error', () => cb(502)).end()
  }

  function handleMultipart (req, res, body, op, bucket, key, q) {
    const id = q.get('uploadId')
    if (op === 'CreateMultipartUpload') {
      return forward(req, res, body, (ures, ubody) => {
        const m = /<UploadId>([^<]+)<\/UploadId>/.exec(ubody.toString('utf8'))
        if (ures.statusCode === 200 && m) uploads.set(m[1], { bucket, key, parts: new Map(), initiated: new Date().toISOString() })
        res.writeHead(ures.statusCode, ures.headers)
        res.end(ubody)
      })
    }
    const up = uploads.get(id)
    if (!up || up.bucket !== bucket || up.key !== key) {
      return s3Error(res, 404, 'NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.', { UploadId: id || '' })
    }
    if (op === 'UploadPart') {
      const n = Number(q.get('partNumber'))
      if (!Number.isInteger(n) || n < 1 || n > 10000) return s3Error(res, 400, 'InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', { ArgumentName: 'partNumber' })
      return forward(req, res, body, (ures, ubody) => {
        if (ures.statusCode === 200) up.parts.set(n, { etag: String(ures.headers.etag || '').replace(/"/g, ''), size: body.length })
        const answer = () => {
          stats.partsAnswered++
          res.writeHead(ures.statusCode, ures.headers)
          res.end(ubody)
        }
        if ((partHold || partDelayMs > 0) && key.includes(partDelayKey)) {
          stats.partsHeld++
          const release = () => { stats.partsHeld--; answer() }
          if (partHold) held.push(release)
          else setTimeout(release, partDelayMs)
        } else {
          answer()
        }
      })
    }
    if (op === 'AbortMultipartUpload') {
      uploads.delete(id)
      res.writeHead(204)
      return res.end()
    }
    // CompleteMultipartUpload
    const text = body.toString('utf8')
    const listed = [ ...text.matchAll(/<Part>\s*<PartNumber>(\d+)<\/PartNumber>\s*<ETag>([^<]*)<\/ETag>\s*<\/Part>/g) ]
      .map((m) => ({ n: Number(m[1]), etag: m[2].replace(/&quot;|"/g, '') }))
    if (listed.length === 0) return s3Error(res, 400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema')
    for (let i = 0; i < listed.length; i++) {
      const p = up.parts.get(listed[i].n)
      if (i > 0 && listed[i].n <= listed[i - 1].n) return s3Error(res, 400, 'InvalidPartOrder', 'The list of parts was not in ascending order. The parts list must be specified in order by part number.')
      if (!p || p.etag !== listed[i].etag) return s3Error(res, 400, 'InvalidPart', 'One or more of the specified parts could not be found.  The part might not have been uploaded, or the specified entity tag might not have matched the part\'s entity tag.', { PartNumber: listed[i].n, ETag: listed[i].etag })
      if (i < listed.length - 1 && p.size < MIN_PART) return s3Error(res, 400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', { ProposedSize: p.size, MinSizeAllowed: MIN_PART, PartNumber: listed[i].n })
    }
    if (completeErrors > 0) {
      completeErrors--
      bump(stats.refused, 'completeError')
      const eb = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>'
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(eb) })
      return res.end(eb)
    }
    const delay = completeDelayMs
    completeDelayMs = 0
    forward(req, res, body, (ures, ubody) => {
      if (ures.statusCode === 200) uploads.delete(id)
      const answer = () => {
        if (delay > 0) stats.completedUnanswered--
        res.writeHead(ures.statusCode, ures.headers)
        res.end(ubody)
      }
      if (delay <= 0) return answer()
      stats.completedUnanswered++ // the object is there; the client does not know it yet
      setTimeout(answer, delay)
    })
  }

  function listUploads (res, bucket, q) {
    const prefix = q.get('prefix') || ''
    let body = `<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult><Bucket>${xmlEscape(bucket)}</Bucket><IsTruncated>false</IsTruncated>`
    for (const [ id, u ] of uploads) {
      if (u.bucket !== bucket || !u.key.startsWith(prefix)) continue
      body += `<Upload><Key>${xmlEscape(u.key)}</Key><UploadId>${id}</UploadId><Initiated>${u.initiated}</Initiated></Upload>`
    }
    body += '</ListMultipartUploadsResult>'
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  }

  function handle (req, res, body) {
    const url = new URL(req.url, 'http://x')
    const q = url.searchParams
    const parts = url.pathname.split('/')
    const bucket = decodeURIComponent(parts[1] || '')
    const key = parts.slice(2).map(decodeURIComponent).join('/')
    const op = opName(req.method, bucket, key, q)
    stats.requests++
    bump(stats.byOp, op)
    const refuse = (status, code, msg, extra, headers) => { bump(stats.refused, code); s3Error(res, status, code, msg, extra, headers) }

    const a = sigv4.parseAuthorization(req.headers.authorization)
    if (!a) return refuse(403, 'AccessDenied', 'Access Denied')
    const bregion = regions.get(bucket) || opts.region
    if (bucket && a.region !== bregion) {
      return refuse(301, 'PermanentRedirect', 'The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.', { Bucket: bucket, Endpoint: `s3.${bregion}.amazonaws.com` }, { 'x-amz-bucket-region': bregion })
    }
    const sha = req.headers['x-amz-content-sha256']
    if (!sha) return refuse(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256')
    const r = { method: req.method, path: url.pathname, query: req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '', rawHeaders: req.rawHeaders, body }
    const v = sigv4.verify(r, (akid) => opts.keys.get(akid) || null, { normalize: false, s3: true, service: 's3', maxSkewMs: 15 * 60 * 1000 })
    if (!v.ok) {
      switch (v.reason) {
        case 'unknown-key': return refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: a.akid })
        case 'skew': return refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.')
        case 'token-mismatch': return refuse(400, 'InvalidToken', 'The provided token is malformed or otherwise invalid.')
        case 'malformed': case 'scope': return refuse(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.', { Region: bregion })
        default: return refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.', { CanonicalRequest: v.canonical || '' })
      }
    }
    if (/^[0-9a-f]{64}$/.test(sha) && crypto.createHash('sha256').update(body).digest('hex') !== sha) {
      return refuse(400, 'XAmzContentSHA256Mismatch', 'The provided \'x-amz-content-sha256\' header does not match what was computed.')
    }
    const md5 = req.headers['content-md5']
    if (md5 && crypto.createHash('md5').update(body).digest('base64') !== md5) return refuse(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.')
    stats.verified++

    if (op === 'ListMultipartUploads') return listUploads(res, bucket, q)
    if ([ 'CreateMultipartUpload', 'CompleteMultipartUpload', 'UploadPart', 'AbortMultipartUpload' ].includes(op)) return handleMultipart(req, res, body, op, bucket, key, q)
    if ((op === 'GetObject' || op === 'HeadObject') && req.headers['if-match']) {
      const want = String(req.headers['if-match']).replace(/"/g, '')
      return head(bucket, key, (status, etag) => {
        if (status === 200 && String(etag || '').replace(/"/g, '') !== want) return refuse(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-Match' })
        forward(req, res, body)
      })
    }
    if (op === 'DeleteObject' && deleteNoSuchBucket > 0) {
      deleteNoSuchBucket--
      return refuse(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket })
    }
    if (op === 'PutBucket' && !regions.has(bucket)) regions.set(bucket, a.region)
    forward(req, res, body)
  }

  const routes = {
    '/__info': () => ({ s3rverPort: addr.port, upstream: upstream.href }),
    '/__stats': () => stats,
    '/__uploads': () => [ ...uploads ].map(([ id, u ]) => ({ id, bucket: u.bucket, key: u.key, parts: u.parts.size })),
    control: (c) => {
      if (c.upstream) upstream = new URL(c.upstream)
      if (c.completeErrors != null) completeErrors = Number(c.completeErrors)
      if (c.deleteNoSuchBucket != null) deleteNoSuchBucket = Number(c.deleteNoSuchBucket)
      if (c.completeDelayMs != null) completeDelayMs = Number(c.completeDelayMs)
      if (c.partDelayMs != null) partDelayMs = Number(c.partDelayMs)
      if (c.partDelayKey != null) partDelayKey = String(c.partDelayKey)
      if (c.partHold != null) {
        partHold = Boolean(c.partHold)
        if (!partHold) {
          const now = held
          held = []
          for (const release of now) release()
        }
      }
    },
  }
  const server = http.createServer(withControl(routes, (req, res, body) => {
    try { handle(req, res, body) } catch (e) { s3Error(res, 500, 'InternalError', e.message) }
  }))
  server.keepAliveTimeout = 30000
  serveOnLoopback(server, opts, 's3-server', () => `s3rver on ${addr.port}, ${opts.keys.size} key(s), buckets ${opts.buckets.map((b) => b.name).join(',') || '(none)'}`)
}

main().catch((e) => { process.stderr.write(`s3-server: ${e.stack || e}\n`); process.exit(1) })
