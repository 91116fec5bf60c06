// Starting a test server the way the test scripts expect (shared by fault-server.js and
// ../cred-server/cred-server.js): listen on 127.0.0.1 only, on the given port or one the kernel
// picks, write the port to --port-file atomically, print "PORT <n>" first on stdout, exit on
// SIGTERM/SIGINT/SIGHUP, and exit by itself once the --owner-pid process is gone (a dead owner
// may linger as a zombie until reaped; that counts as gone too).
'use strict'

const crypto = require('crypto')
const fs = require('fs')
const zlib = require('zlib')

function serveOnLoopback (server, opts, name, describe) {
  server.on('error', (err) => {
    process.stderr.write(`${name}: ${err.message}\n`)
    process.exit(1)
  })
  server.listen(opts.port || 0, '127.0.0.1', () => {
    const port = server.address().port
    if (opts.portFile) {
      fs.writeFileSync(opts.portFile + '.tmp', `${port}\n`)
      fs.renameSync(opts.portFile + '.tmp', opts.portFile)
    }
    process.stdout.write(`PORT ${port}\n`)
    if (!opts.quiet) process.stderr.write(`${name}: listening on 127.0.0.1:${port}${describe ? `, ${describe()}` : ''}\n`)
  })
  for (const sig of [ 'SIGTERM', 'SIGINT', 'SIGHUP' ]) process.on(sig, () => process.exit(0))
  if (opts.ownerPid > 0) {
    const ownerGone = () => {
      try { process.kill(opts.ownerPid, 0) } catch (e) { return e.code === 'ESRCH' }
      try {
        const st = fs.readFileSync(`/proc/${opts.ownerPid}/stat`, 'utf8')
        return st.slice(st.lastIndexOf(')') + 2).startsWith('Z')
      } catch { return false }
    }
    setInterval(() => { if (ownerGone()) process.exit(0) }, 1000).unref()
  }
}

// A server for the test scripts' own requests beside the real ones: the whole body is read,
// then paths starting with /__ go to routes (GET path -> () => JSON to answer; POST
// /__control -> the parsed JSON handed to routes.control), the rest to handle(req, res, body).
function withControl (routes, handle) {
  const json = (res, status, o) => {
    const b = JSON.stringify(o)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b) })
    res.end(b)
  }
  function control (req, res, body) {
    const p = req.url.split('?')[0]
    if (p === '/__control' && req.method === 'POST' && routes.control) {
      try {
        routes.control(JSON.parse(body.toString('utf8') || '{}'))
        return json(res, 200, { ok: true })
      } catch (e) { return json(res, 400, { error: e.message }) }
    }
    if (routes[p]) return json(res, 200, routes[p]())
    json(res, 404, { error: 'unknown control path' })
  }
  return (req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      if (req.url.startsWith('/__')) return control(req, res, body)
      handle(req, res, body)
    })
  }
}

// An answer of the JSON 1.0 protocol, with the request id and the CRC32 header DynamoDB sends.
function replyJson10 (res, status, obj) {
  const body = Buffer.from(JSON.stringify(obj))
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': body.length,
    'x-amzn-requestid': crypto.randomBytes(16).toString('hex').toUpperCase(),
    'x-amz-crc32': String(zlib.crc32(body)),
  })
  res.end(body)
}

module.exports = { serveOnLoopback, withControl, replyJson10 }
