// Starting a test server the way the test scripts expect (shared by fault-server.js and
// ../cred-server/cred-server.js): listen on 127.0.0.1 only, on the given port or one the kernel
// picks, write the port to --port-file atomically, print "PORT <n>" first on stdout, exit on
// SIGTERM/SIGINT/SIGHUP, and exit by itself once the --owner-pid process is gone (a dead owner
// may linger as a zombie until reaped; that counts as gone too).
'use strict'

const fs = require('fs')

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

module.exports = { serveOnLoopback }
