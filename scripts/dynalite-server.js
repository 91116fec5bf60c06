#!/usr/bin/env node
// Test-only launcher for dynalite (npm) bound to loopback.
//
// dynalite's own cli.js treats `--port 0` as "use 4567" (argv.port || 4567), so it cannot let
// the kernel pick a free port; this wrapper uses the programmatic API instead, which can.
//
// Usage: node scripts/dynalite-server.js [--port N] [--port-file FILE] [--owner-pid PID]
//                                        [--table-ms MS] [--max-item-size-kb KB] [--verbose]
//   --port N             port to bind on 127.0.0.1 (default 0 = any free port)
//   --port-file FILE     write the bound port there (atomically, via FILE.tmp + rename)
//   --owner-pid PID      exit when PID no longer exists (guards against orphans if the test
//                        driver is killed without running its cleanup)
//   --table-ms MS        createTableMs/deleteTableMs/updateTableMs (default 0: tables are
//                        ACTIVE immediately)
// Data lives in memory only (no --path is ever passed to dynalite).
'use strict'

const fs = require('fs')
const path = require('path')

function parseArgs (argv) {
  const opts = { port: 0, portFile: null, ownerPid: 0, tableMs: 0, maxItemSizeKb: null, verbose: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`option ${a} needs a value`)
      return argv[++i]
    }
    switch (a) {
      case '--port': opts.port = Number(next()); break
      case '--port-file': opts.portFile = next(); break
      case '--owner-pid': opts.ownerPid = Number(next()); break
      case '--table-ms': opts.tableMs = Number(next()); break
      case '--max-item-size-kb': opts.maxItemSizeKb = Number(next()); break
      case '--verbose': opts.verbose = true; break
      default: throw new Error(`unknown option ${a}`)
    }
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new Error('bad --port')
  if (!Number.isInteger(opts.tableMs) || opts.tableMs < 0) throw new Error('bad --table-ms')
  return opts
}

let opts
try {
  opts = parseArgs(process.argv.slice(2))
} catch (e) {
  process.stderr.write(`dynalite-server: ${e.message}\n`)
  process.exit(2)
}

let dynalite
try {
  dynalite = require('dynalite')
} catch (e) {
  process.stderr.write(`dynalite-server: cannot load dynalite (run "npm ci" in ${path.resolve(__dirname, '..')}): ${e.message}\n`)
  process.exit(3)
}

const dynOpts = {
  createTableMs: opts.tableMs,
  deleteTableMs: opts.tableMs,
  updateTableMs: opts.tableMs,
  verbose: opts.verbose,
}
if (opts.maxItemSizeKb != null) dynOpts.maxItemSizeKb = opts.maxItemSizeKb

const server = dynalite(dynOpts)
server.on('error', (err) => {
  process.stderr.write(`dynalite-server: ${err.message}\n`)
  process.exit(1)
})
server.listen(opts.port, '127.0.0.1', () => {
  const port = server.address().port
  if (opts.portFile) {
    const tmp = opts.portFile + '.tmp'
    fs.writeFileSync(tmp, `${port}\n`)
    fs.renameSync(tmp, opts.portFile)
  }
  process.stdout.write(`PORT ${port}\n`)
})

// The store is in memory, so there is nothing to flush: exit at once instead of waiting for
// dynalite's graceful close (which waits up to 30 s for keep-alive sockets).
for (const sig of [ 'SIGTERM', 'SIGINT', 'SIGHUP' ]) process.on(sig, () => process.exit(0))

if (opts.ownerPid > 0) {
  // A dead owner may linger as a zombie until its parent reaps it; treat that as gone too.
  const ownerGone = () => {
    try {
      process.kill(opts.ownerPid, 0)
    } catch (e) {
      return e.code === 'ESRCH'
    }
    try {
      const stat = fs.readFileSync(`/proc/${opts.ownerPid}/stat`, 'utf8')
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
    } catch {
      return false
    }
  }
  setInterval(() => { if (ownerGone()) process.exit(0) }, 1000).unref()
}
