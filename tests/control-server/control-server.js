// DynamoDB's export and import control plane for the integration tests, in front of dynalite
// (which has none of it): ExportTableToPointInTime, DescribeExport, ListExports, ImportTable,
// DescribeImport, ListImports, UpdateContinuousBackups and DescribeContinuousBackups are
// answered here as the DynamoDB API reference documents them; every other operation is passed to
// dynalite unchanged. Bound to 127.0.0.1 only.
//
//   node tests/control-server/control-server.js --dynamodb URL --s3 URL --export-data DIR
//        [--key AKID:SECRET]... [--export-polls 3] [--import-polls 3] [--region us-east-1]
//        [--port 0] [--port-file F] [--owner-pid PID] [--quiet]
//
// --s3 is s3rver itself (tests/s3-server/s3-server.js's GET /__info gives its port): the jobs
// write and read objects as DynamoDB does, with its own access. --export-data is the real AWS
// export under ../shared/testdata/aws-export: what an export "exports" (see README.md).
//
// As slow and strict as DynamoDB: a job stays IN_PROGRESS for several Describe* polls; requests
// are checked (SigV4 with the --key keys, required members, enums, unknown members refused),
// exports need point-in-time recovery (off until UpdateContinuousBackups turns it on) and times
// inside its window (an incremental window of 15 minutes to 24 hours), ClientToken makes a
// request idempotent, ImportTable only creates new tables and counts the lines it cannot load.
//
// Control (paths starting with /__, unsigned): GET /__stats (calls per operation, exports and
// imports created), GET /__imports (each import with the errors it logged, as CloudWatch would
// hold them), POST /__control with {"pitrSince": {"TABLE": epochSeconds}} (recovery turned on
// back then: the window reaches back), {"failNextExport": {"code", "message"}} (the next export
// ends FAILED so), {"importLineFaults": N} (the next import's first N good lines fail their
// write, a fault of the service), {"exportPolls": N, "importPolls": N} (the polls the jobs
// created from then on stay IN_PROGRESS for, as --export-polls and --import-polls set).
'use strict'

const http = require('http')
const path = require('path')
const sigv4 = require(path.join(__dirname, '..', 'cred-server', 'sigv4.js'))
const { serveOnLoopback, withControl, replyJson10 } = require(path.join(__dirname, '..', 'fault-server', 'loopback.js'))
const jobs = require(path.join(__dirname, 'jobs.js'))
const { ApiError } = jobs

function parseArgs (argv) {
  const o = { dynamodb: null, s3: null, exportData: null, keys: new Map(), exportPolls: 3, importPolls: 3, region: 'us-east-1', port: 0, portFile: null, ownerPid: 0, quiet: false }
  for (let i = 2; i < argv.length; i++) {
    const next = () => argv[++i]
    switch (argv[i]) {
      case '--dynamodb': o.dynamodb = new URL(next()); break
      case '--s3': o.s3 = new URL(next()); break
      case '--export-data': o.exportData = next(); break
      case '--key': { const [ k, s ] = next().split(':'); o.keys.set(k, { secret: s }); break }
      case '--export-polls': o.exportPolls = Number(next()); break
      case '--import-polls': o.importPolls = Number(next()); break
      case '--region': o.region = next(); break
      case '--port': o.port = Number(next()); break
      case '--port-file': o.portFile = next(); break
      case '--owner-pid': o.ownerPid = Number(next()); break
      case '--quiet': o.quiet = true; break
      default: process.stderr.write(`control-server: unknown option ${argv[i]}\n`); process.exit(2)
    }
  }
  if (!o.dynamodb || !o.s3 || !o.exportData) {
    process.stderr.write('control-server: --dynamodb, --s3 and --export-data are required\n')
    process.exit(2)
  }
  return o
}

const reply = replyJson10

function fail (res, e) {
  const prefix = e.type === 'MissingAuthenticationTokenException' || e.type === 'UnrecognizedClientException' ||
    e.type === 'InvalidSignatureException' ? 'com.amazon.coral.service#' : 'com.amazonaws.dynamodb.v20120810#'
  reply(res, e.status, { __type: prefix + e.type, message: e.message })
}

function main () {
  const opts = parseArgs(process.argv)
  const stats = { calls: {}, exports: 0, imports: 0 }
  const control = { failNextExport: null, importLineFaults: 0 }
  const ctx = jobs.context(opts, control)
  const handlers = {
    ExportTableToPointInTime: ctx.exportTable,
    DescribeExport: ctx.describeExport,
    ListExports: ctx.listExports,
    ImportTable: ctx.importTable,
    DescribeImport: ctx.describeImport,
    ListImports: ctx.listImports,
    UpdateContinuousBackups: ctx.updateContinuousBackups,
    DescribeContinuousBackups: ctx.describeContinuousBackups,
  }

  // Everything else is dynalite's; a DeleteTable also ends the table's recovery settings.
  function proxy (req, res, body, op) {
    const headers = { ...req.headers, host: opts.dynamodb.host, 'content-length': String(body.length) }
    const up = http.request({ host: opts.dynamodb.hostname, port: opts.dynamodb.port, method: req.method, path: req.url, headers }, (ures) => {
      if (op === 'DeleteTable' && ures.statusCode === 200) {
        try { ctx.forget(JSON.parse(body.toString('utf8')).TableName) } catch (e) { /* dynalite answered */ }
      }
      res.writeHead(ures.statusCode, ures.headers)
      ures.pipe(res)
    })
    up.on('error', (e) => fail(res, new ApiError('InternalServerError', `dynalite: ${e.message}`, 500)))
    up.end(body)
  }

  function verified (req, body) {
    if (opts.keys.size === 0) return
    const url = new URL(req.url, 'http://x')
    const r = { method: req.method, path: url.pathname, query: url.search.slice(1), rawHeaders: req.rawHeaders, body }
    const v = sigv4.verify(r, (akid) => opts.keys.get(akid) || null, { service: 'dynamodb', maxSkewMs: 15 * 60 * 1000 })
    if (v.ok) return
    if (v.reason === 'missing') throw new ApiError('MissingAuthenticationTokenException', 'Request is missing Authentication Token')
    if (v.reason === 'unknown-key') throw new ApiError('UnrecognizedClientException', 'The security token included in the request is invalid.')
    throw new ApiError('InvalidSignatureException', 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.')
  }

  async function api (req, res, body, op) {
    stats.calls[op] = (stats.calls[op] || 0) + 1
    try {
      verified(req, body)
      let input
      try { input = JSON.parse(body.toString('utf8') || '{}') } catch (e) { throw new ApiError('SerializationException', 'Start of structure or map found where not expected.') }
      if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ApiError('SerializationException', 'Start of structure or map found where not expected.')
      const out = await handlers[op](input, stats)
      reply(res, 200, out)
    } catch (e) {
      if (!(e instanceof ApiError)) {
        if (!opts.quiet) process.stderr.write(`control-server: ${op}: ${e.stack || e}\n`)
        return fail(res, new ApiError('InternalServerError', String(e.message || e), 500))
      }
      fail(res, e)
    }
  }

  const routes = {
    '/__stats': () => stats,
    '/__imports': () => ctx.importLogs(),
    control: (c) => {
      for (const [ t, since ] of Object.entries(c.pitrSince || {})) ctx.backdate(t, Number(since))
      if (c.failNextExport) control.failNextExport = c.failNextExport
      if (c.importLineFaults != null) control.importLineFaults = Number(c.importLineFaults)
      if (c.exportPolls != null) opts.exportPolls = Number(c.exportPolls)
      if (c.importPolls != null) opts.importPolls = Number(c.importPolls)
    },
  }
  const server = http.createServer(withControl(routes, (req, res, body) => {
    const target = String(req.headers['x-amz-target'] || '')
    const op = target.startsWith('DynamoDB_20120810.') ? target.slice(18) : ''
    if (handlers[op]) return api(req, res, body, op)
    stats.calls[op || '(none)'] = (stats.calls[op || '(none)'] || 0) + 1
    proxy(req, res, body, op)
  }))
  server.keepAliveTimeout = 30000
  serveOnLoopback(server, opts, 'control-server', () => `dynalite at ${opts.dynamodb.host}, s3rver at ${opts.s3.host}`)
}

main()
