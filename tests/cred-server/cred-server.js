#!/usr/bin/env node
// Scripted credential services for ddbpipe's tests, on 127.0.0.1 only (plain Node, no deps):
//   - STS (POST /, Query protocol): AssumeRole (SigV4 verified for real, see sigv4.js) and
//     AssumeRoleWithWebIdentity (unsigned), answering XML as AWS does, error documents included;
//   - the IAM Identity Center portal (GET /federation/credentials, x-amz-sso_bearer_token);
//   - a container credentials endpoint (ECS / EKS Pod Identity, optional Authorization token);
//   - EC2 instance metadata, IMDSv2 only (PUT /latest/api/token with a TTL header, then GETs
//     carrying the token; no token, a bad or an expired one is 401).
// Every credential it issues lives `lifetimeS` seconds (a few, so tests cross many expiries);
// the fault server asks GET /__keys/<id> whether a key exists and until when it is valid.
// See README.md beside this file.
'use strict'

const http = require('http')
const https = require('https')
const fs = require('fs')
const crypto = require('crypto')
const sigv4 = require('./sigv4')
const { serveOnLoopback } = require('../fault-server/loopback')

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const randomId = (prefix) => prefix + Array.from(crypto.randomBytes(16), (b) => B32[b & 31]).join('')
const randomSecret = () => crypto.randomBytes(30).toString('base64') // 40 chars, with + and /
const randomToken = () => 'IQoJb3JpZ2luX2VjE' + crypto.randomBytes(240).toString('base64') // ~340 chars
const requestId = () => crypto.randomUUID()
const iso = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
const xmlEscape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const DEFAULTS = {
  lifetimeS: 8, // advertised lifetime of every credential issued (time compressed)
  region: 'us-east-1', // the region STS signatures must be scoped to
  account: '111122223333',
  users: {}, // long-term keys STS accepts: { AKID: { secret, arn } }
  roles: {}, // { roleArn: { externalId?, webIdentity?: true, maxSessionS? } }
  webTokens: [], // web identity tokens accepted
  expiredWebTokens: [], // tokens answered ExpiredTokenException
  ssoTokens: {}, // { accessToken: { account: [roleName, ...] } }
  container: { path: '/creds', token: null, roleArn: 'arn:aws:iam::111122223333:role/task' },
  imds: { role: 'ec2-instance-role', region: 'us-west-2', tokenTtlMaxS: 21600 },
  echoSecretsInErrors: false, // put the request's secrets into error messages (leak tests)
}

function parseArgs (argv) {
  const o = { port: 0, portFile: null, script: null, ownerPid: 0, quiet: false, tlsCert: null, tlsKey: null }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`option ${a} needs a value`)
      return argv[++i]
    }
    switch (a) {
      case '--port': o.port = Number(next()); break
      case '--port-file': o.portFile = next(); break
      case '--script': o.script = next(); break
      case '--owner-pid': o.ownerPid = Number(next()); break
      case '--quiet': o.quiet = true; break
      case '--tls-cert': o.tlsCert = next(); break
      case '--tls-key': o.tlsKey = next(); break
      default: throw new Error(`unknown option ${a}`)
    }
  }
  if (!o.tlsCert !== !o.tlsKey) throw new Error('--tls-cert and --tls-key go together')
  return o
}

function main () {
  let opts
  let config = JSON.parse(JSON.stringify(DEFAULTS))
  try {
    opts = parseArgs(process.argv.slice(2))
    if (opts.script) config = { ...config, ...JSON.parse(fs.readFileSync(opts.script, 'utf8')) }
  } catch (e) {
    process.stderr.write(`cred-server: ${e.message}\n`)
    process.exit(2)
  }
  const log = (m) => { if (!opts.quiet) process.stderr.write(`cred-server: ${m}\n`) }

  // Every key issued: akid -> { secret, token, expiresMs, validUntilMs, source, arn, caller }
  const issued = new Map()
  const imdsTokens = new Map() // token -> expiresMs
  let imdsCurrent = null // the instance role's current key (rotated at half its lifetime)
  let injected = {} // route -> [ { status, code, message } ] consumed one per request
  let stats = newStats()

  function newStats () {
    return {
      sts: { requests: 0, AssumeRole: 0, AssumeRoleWithWebIdentity: 0, signedWebIdentity: 0, unsignedAssumeRole: 0, errors: {}, callers: [], webTokens: {}, sessionNames: [], externalIds: [], durations: [] },
      sso: { requests: 0, errors: {} },
      container: { requests: 0, errors: {}, authorizations: {} },
      imds: { tokenPuts: 0, gets: 0, unauthorized: 0, badTtl: 0, credentials: 0, region: 0 },
      issued: { sts: 0, sso: 0, container: 0, imds: 0 },
    }
  }
  const bump = (o, k) => { o[k] = (o[k] || 0) + 1 }

  function issue (source, arn, caller, lifetimeS) {
    const now = Date.now()
    const k = {
      akid: randomId('ASIA'), secret: randomSecret(), token: randomToken(),
      expiresMs: now + (lifetimeS || config.lifetimeS) * 1000, source, arn, caller,
    }
    k.validUntilMs = k.expiresMs
    issued.set(k.akid, k)
    stats.issued[source]++
    return k
  }

  // A key STS accepts as a caller: a user's long-term key or an issued, unexpired one.
  function callerKey (akid) {
    if (config.users[akid]) return { secret: config.users[akid].secret, token: undefined, arn: config.users[akid].arn, longTerm: true }
    const k = issued.get(akid)
    return k ? { secret: k.secret, token: k.token, arn: k.arn, validUntilMs: k.validUntilMs } : null
  }

  function takeInjected (route) {
    const q = injected[route]
    return q && q.length ? q.shift() : null
  }

  // ---- STS -------------------------------------------------------------------------------

  function stsError (res, status, code, message, type = 'Sender') {
    bump(stats.sts.errors, code)
    const body = '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">\n' +
      `  <Error>\n    <Type>${type}</Type>\n    <Code>${code}</Code>\n    <Message>${xmlEscape(message)}</Message>\n  </Error>\n` +
      `  <RequestId>${requestId()}</RequestId>\n</ErrorResponse>\n`
    res.writeHead(status, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(body), 'x-amzn-requestid': requestId() })
    res.end(body)
  }

  function stsCredentials (action, k, extra) {
    const body = `<${action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/">\n  <${action}Result>\n${extra}` +
      `    <AssumedRoleUser>\n      <AssumedRoleId>AROA${k.akid.slice(4, 20)}:${xmlEscape(k.sessionName)}</AssumedRoleId>\n` +
      `      <Arn>${xmlEscape(k.arn.replace(':iam::', ':sts::').replace(':role/', ':assumed-role/'))}/${xmlEscape(k.sessionName)}</Arn>\n    </AssumedRoleUser>\n` +
      `    <Credentials>\n      <AccessKeyId>${k.akid}</AccessKeyId>\n      <SecretAccessKey>${xmlEscape(k.secret)}</SecretAccessKey>\n` +
      `      <SessionToken>${xmlEscape(k.token)}</SessionToken>\n      <Expiration>${iso(k.expiresMs)}</Expiration>\n    </Credentials>\n` +
      `  </${action}Result>\n  <ResponseMetadata>\n    <RequestId>${requestId()}</RequestId>\n  </ResponseMetadata>\n</${action}Response>\n`
    return body
  }

  // Validates the parameters shared by both calls; returns an error triple or null.
  function checkRoleParams (p) {
    const arn = p.get('RoleArn')
    const name = p.get('RoleSessionName')
    const d = p.get('DurationSeconds')
    if (!arn) return [ 400, 'ValidationError', "1 validation error detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null" ]
    if (!/^arn:aws[\w-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/.test(arn)) return [ 400, 'ValidationError', `${arn} is invalid` ]
    if (name == null) return [ 400, 'ValidationError', "1 validation error detected: Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null" ]
    if (!/^[\w+=,.@-]{2,64}$/.test(name)) return [ 400, 'ValidationError', `1 validation error detected: Value '${name}' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*` ]
    if (d != null) {
      const n = Number(d)
      const max = (config.roles[arn] && config.roles[arn].maxSessionS) || 3600
      if (!Number.isInteger(n) || n < 900) return [ 400, 'ValidationError', `1 validation error detected: Value '${d}' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900` ]
      if (n > max) return [ 400, 'ValidationError', 'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.' ]
    }
    return null
  }

  function handleSts (req, res, body) {
    stats.sts.requests++
    const inj = takeInjected('sts')
    if (inj) return stsError(res, inj.status, inj.code, inj.message || 'injected', inj.status >= 500 ? 'Receiver' : 'Sender')
    const ctype = String(req.headers['content-type'] || '')
    if (!ctype.startsWith('application/x-www-form-urlencoded')) return stsError(res, 400, 'InvalidAction', 'Could not find operation for the request content type')
    const p = new URLSearchParams(body.toString('utf8'))
    const action = p.get('Action')
    if (p.get('Version') !== '2011-06-15') return stsError(res, 400, 'InvalidAction', `Could not find operation ${action} for version ${p.get('Version')}`)
    if (action === 'AssumeRole') return assumeRole(req, res, body, p)
    if (action === 'AssumeRoleWithWebIdentity') return assumeRoleWithWebIdentity(req, res, p)
    return stsError(res, 400, 'InvalidAction', `Could not find operation ${action} for version 2011-06-15`)
  }

  function assumeRole (req, res, body, p) {
    stats.sts.AssumeRole++
    const r = { method: req.method, path: req.url.split('?')[0], query: req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '', rawHeaders: req.rawHeaders, body }
    if (!req.headers.authorization) stats.sts.unsignedAssumeRole++
    const v = sigv4.verify(r, callerKey, { region: config.region, service: 'sts' })
    if (!v.ok) {
      switch (v.reason) {
        case 'missing': return stsError(res, 403, 'MissingAuthenticationToken', 'Request is missing Authentication Token')
        case 'malformed': return stsError(res, 400, 'IncompleteSignature', 'Authorization header requires \'Credential\', \'Signature\', \'SignedHeaders\' and a matching X-Amz-Date.')
        case 'unknown-key':
        case 'token-mismatch': return stsError(res, 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.')
        case 'scope': return stsError(res, 403, 'SignatureDoesNotMatch', `Credential should be scoped to a valid region, not '${v.auth.region}'. `)
        case 'skew': return stsError(res, 403, 'SignatureDoesNotMatch', `Signature expired: ${v.amzDate} is now earlier than the allowed time (5 min.)`)
        default: return stsError(res, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.')
      }
    }
    const caller = callerKey(v.akid)
    if (!caller.longTerm && Date.now() >= caller.validUntilMs) return stsError(res, 403, 'ExpiredToken', 'The security token included in the request is expired')
    const bad = checkRoleParams(p)
    if (bad) return stsError(res, ...bad)
    const arn = p.get('RoleArn')
    const role = config.roles[arn]
    const ext = p.get('ExternalId')
    if (!role || (role.externalId != null && role.externalId !== ext)) {
      return stsError(res, 403, 'AccessDenied', `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${arn}`)
    }
    stats.sts.callers.push({ role: arn, callerArn: caller.arn, callerKey: v.akid })
    stats.sts.sessionNames.push(p.get('RoleSessionName'))
    stats.sts.externalIds.push(ext)
    stats.sts.durations.push(p.get('DurationSeconds'))
    const k = issue('sts', arn, v.akid)
    k.sessionName = p.get('RoleSessionName')
    const out = stsCredentials('AssumeRole', k, '')
    res.writeHead(200, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(out), 'x-amzn-requestid': requestId() })
    res.end(out)
  }

  function assumeRoleWithWebIdentity (req, res, p) {
    stats.sts.AssumeRoleWithWebIdentity++
    if (req.headers.authorization) stats.sts.signedWebIdentity++
    const token = p.get('WebIdentityToken')
    const bad = checkRoleParams(p)
    if (bad) return stsError(res, ...bad)
    if (!token) return stsError(res, 400, 'ValidationError', "1 validation error detected: Value null at 'webIdentityToken' failed to satisfy constraint: Member must not be null")
    bump(stats.sts.webTokens, token)
    const echo = config.echoSecretsInErrors ? ` (token ${token})` : ''
    if (config.expiredWebTokens.includes(token)) {
      const now = Math.floor(Date.now() / 1000)
      return stsError(res, 400, 'ExpiredTokenException', `Token expired: current date/time ${now} must be before the expiration date/time${now - 60}${echo}`)
    }
    if (!config.webTokens.includes(token)) return stsError(res, 400, 'InvalidIdentityToken', `Incorrect token audience${echo}`)
    const arn = p.get('RoleArn')
    if (!config.roles[arn] || !config.roles[arn].webIdentity) return stsError(res, 403, 'AccessDenied', `Not authorized to perform sts:AssumeRoleWithWebIdentity${echo}`)
    stats.sts.sessionNames.push(p.get('RoleSessionName'))
    const k = issue('sts', arn, 'web-identity')
    k.sessionName = p.get('RoleSessionName')
    const extra = '    <Audience>sts.amazonaws.com</Audience>\n    <SubjectFromWebIdentityToken>system:serviceaccount:jobs:ddbpipe</SubjectFromWebIdentityToken>\n' +
      `    <Provider>arn:aws:iam::${config.account}:oidc-provider/oidc.example.com</Provider>\n`
    const out = stsCredentials('AssumeRoleWithWebIdentity', k, extra)
    res.writeHead(200, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(out), 'x-amzn-requestid': requestId() })
    res.end(out)
  }

  // ---- SSO portal ------------------------------------------------------------------------

  function jsonOut (res, status, obj, headers = {}) {
    const b = JSON.stringify(obj)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b), ...headers })
    res.end(b)
  }

  function handleSso (req, res, url) {
    stats.sso.requests++
    const fail = (status, type, message) => {
      bump(stats.sso.errors, type)
      jsonOut(res, status, { message }, { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.switchboard.portal/` })
    }
    const inj = takeInjected('sso')
    if (inj) return fail(inj.status, inj.code, inj.message || 'injected')
    const token = req.headers['x-amz-sso_bearer_token']
    const account = url.searchParams.get('account_id')
    const role = url.searchParams.get('role_name')
    if (!account || !role) return fail(400, 'InvalidRequestException', 'account_id and role_name are required')
    const grant = token && config.ssoTokens[token]
    if (!grant) return fail(401, 'UnauthorizedException', `Session token not found or invalid${config.echoSecretsInErrors && token ? ` (${token})` : ''}`)
    if (!(grant[account] || []).includes(role)) return fail(403, 'ForbiddenException', 'No access')
    const k = issue('sso', `arn:aws:iam::${account}:role/${role}`, 'sso')
    jsonOut(res, 200, { roleCredentials: { accessKeyId: k.akid, secretAccessKey: k.secret, sessionToken: k.token, expiration: Math.floor(k.expiresMs / 1000) * 1000 } })
  }

  // ---- container endpoint ----------------------------------------------------------------

  function handleContainer (req, res) {
    stats.container.requests++
    const inj = takeInjected('container')
    if (inj) { bump(stats.container.errors, inj.code); return jsonOut(res, inj.status, { code: inj.code, message: inj.message || 'injected' }) }
    bump(stats.container.authorizations, req.headers.authorization || '(none)')
    if (config.container.token != null && req.headers.authorization !== config.container.token) {
      bump(stats.container.errors, 'AccessDenied')
      return jsonOut(res, 401, { code: 'AccessDeniedException', message: 'Unauthorized: the Authorization header is missing or invalid' })
    }
    const k = issue('container', config.container.roleArn, 'container')
    jsonOut(res, 200, { RoleArn: config.container.roleArn, AccessKeyId: k.akid, SecretAccessKey: k.secret, Token: k.token, Expiration: iso(k.expiresMs) })
  }

  // ---- EC2 instance metadata (IMDSv2) ----------------------------------------------------

  function handleImds (req, res, url) {
    const text = (status, body, headers = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body), ...headers })
      res.end(body)
    }
    if (req.method === 'PUT' && url.pathname === '/latest/api/token') {
      stats.imds.tokenPuts++
      if (req.headers['x-forwarded-for']) return text(403, 'Forbidden')
      const ttl = req.headers['x-aws-ec2-metadata-token-ttl-seconds']
      if (ttl == null || !/^\d+$/.test(ttl) || +ttl < 1 || +ttl > config.imds.tokenTtlMaxS) { stats.imds.badTtl++; return text(400, 'Bad Request') }
      const token = crypto.randomBytes(42).toString('base64')
      imdsTokens.set(token, Date.now() + ttl * 1000)
      return text(200, token, { 'x-aws-ec2-metadata-token-ttl-seconds': ttl })
    }
    if (req.method !== 'GET') return text(405, 'Method Not Allowed')
    stats.imds.gets++
    const token = req.headers['x-aws-ec2-metadata-token']
    if (!token || !imdsTokens.has(token) || imdsTokens.get(token) <= Date.now()) { stats.imds.unauthorized++; return text(401, 'Unauthorized') }
    const base = '/latest/meta-data/iam/security-credentials/'
    if (url.pathname === '/latest/meta-data/placement/region') { stats.imds.region++; return text(200, config.imds.region) }
    if (url.pathname === base) return config.imds.role ? text(200, config.imds.role) : text(404, 'Not Found')
    if (config.imds.role && url.pathname === base + config.imds.role) {
      stats.imds.credentials++
      // EC2 rotates the instance role's keys well before they expire; so do we, at half life.
      const now = Date.now()
      if (!imdsCurrent || imdsCurrent.expiresMs - now <= (config.lifetimeS * 1000) / 2) imdsCurrent = issue('imds', `arn:aws:iam::${config.account}:role/${config.imds.role}`, 'imds')
      const k = imdsCurrent
      const b = JSON.stringify({ Code: 'Success', LastUpdated: iso(now), Type: 'AWS-HMAC', AccessKeyId: k.akid, SecretAccessKey: k.secret, Token: k.token, Expiration: iso(k.expiresMs) }, null, 2)
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(b) })
      return res.end(b)
    }
    return text(404, 'Not Found')
  }

  // ---- control ---------------------------------------------------------------------------

  function handleControl (req, res, url, body) {
    if (url.pathname.startsWith('/__keys/')) {
      const akid = decodeURIComponent(url.pathname.slice(8))
      const k = issued.get(akid)
      if (k) return jsonOut(res, 200, { secretAccessKey: k.secret, sessionToken: k.token, expiration: k.expiresMs, validUntil: k.validUntilMs, source: k.source, arn: k.arn })
      const u = config.users[akid]
      if (u) return jsonOut(res, 200, { secretAccessKey: u.secret, sessionToken: null, expiration: null, validUntil: null, source: 'user', arn: u.arn })
      return jsonOut(res, 404, { error: 'unknown key' })
    }
    if (url.pathname === '/__health') return jsonOut(res, 200, { ok: true })
    if (url.pathname === '/__stats') return jsonOut(res, 200, stats)
    if (url.pathname === '/__issued') {
      // Every secret handed out, for tests that grep logs and outputs for leaks.
      const secrets = []
      for (const k of issued.values()) secrets.push(k.secret, k.token)
      for (const u of Object.values(config.users)) secrets.push(u.secret)
      secrets.push(...config.webTokens, ...config.expiredWebTokens, ...Object.keys(config.ssoTokens))
      if (config.container.token) secrets.push(config.container.token)
      return jsonOut(res, 200, { count: issued.size, bySource: stats.issued, secrets })
    }
    if (url.pathname === '/__control' && req.method === 'POST') {
      let cmd
      try {
        cmd = JSON.parse(body.toString('utf8') || '{}')
      } catch (e) {
        return jsonOut(res, 400, { error: e.message })
      }
      if (cmd.config) config = { ...config, ...cmd.config }
      if (cmd.inject) for (const [ route, list ] of Object.entries(cmd.inject)) injected[route] = (injected[route] || []).concat(list)
      if (cmd.revokeAll) for (const k of issued.values()) k.validUntilMs = Math.min(k.validUntilMs, Date.now())
      if (cmd.resetStats) stats = newStats()
      return jsonOut(res, 200, { ok: true })
    }
    return jsonOut(res, 404, { error: `unknown control path ${url.pathname}` })
  }

  const handler = (req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const url = new URL(req.url, 'http://127.0.0.1')
      try {
        if (url.pathname.startsWith('/__')) return handleControl(req, res, url, body)
        if (url.pathname === '/federation/credentials' && req.method === 'GET') return handleSso(req, res, url)
        if (url.pathname === config.container.path && req.method === 'GET') return handleContainer(req, res)
        if (url.pathname.startsWith('/latest/')) return handleImds(req, res, url)
        if (req.method === 'POST' && url.pathname === '/') return handleSts(req, res, body)
        jsonOut(res, 404, { error: `no route for ${req.method} ${url.pathname}` })
      } catch (e) {
        log(`internal error: ${e.stack}`)
        jsonOut(res, 500, { error: 'internal' })
      }
    })
  }
  const server = opts.tlsCert
    ? https.createServer({ cert: fs.readFileSync(opts.tlsCert), key: fs.readFileSync(opts.tlsKey) }, handler)
    : http.createServer(handler)
  server.keepAliveTimeout = 5000
  serveOnLoopback(server, opts, 'cred-server')
}

if (require.main === module) main()
