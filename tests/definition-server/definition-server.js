// What DynamoDB Local does not keep of a table's definition, for the tests: in front of it (any
// DynamoDB endpoint, --dynamodb), this server answers ListTagsOfResource, TagResource,
// UntagResource, DescribeContinuousBackups, UpdateContinuousBackups, GetResourcePolicy,
// PutResourcePolicy and DeleteResourcePolicy as the DynamoDB API reference documents them, and
// adds to DescribeTable's and CreateTable's answers what DynamoDB Local accepts but does not
// describe: SSEDescription (a KMS key given to CreateTable) and TableClassSummary. It also plays
// Application Auto Scaling for the dynamodb namespace (X-Amz-Target AnyScaleFrontendService.*,
// JSON 1.1: RegisterScalableTarget, DescribeScalableTargets, PutScalingPolicy,
// DescribeScalingPolicies). Everything else goes to DynamoDB Local unchanged. Bound to 127.0.0.1
// only.
//
//   node tests/definition-server/definition-server.js --dynamodb URL [--account AKID=123456789012]...
//        [--port 0] [--port-file F] [--owner-pid PID] [--quiet]
//
// Accounts: DynamoDB Local without -sharedDb keeps a database per access key and region, and
// names every table arn:aws:dynamodb:ddblocal:000000000000:table/NAME whatever the account. Here
// a table is the access key's (--account gives its account id; 000000000000 otherwise) and
// region's, and its ARN in every answer is arn:aws:dynamodb:REGION:ACCOUNT:table/NAME (requests
// naming it so are turned back before they reach DynamoDB Local). A ResourceArn of another
// account or region is a table this caller cannot see: AccessDeniedException, as AWS answers.
//
// Control (paths starting with /__, unsigned): GET /__stats (calls per operation), GET
// /__state (what is kept per table: tags, recovery, policy, encryption, class).
'use strict'

const crypto = require('crypto')
const http = require('http')
const path = require('path')
const zlib = require('zlib')
const { serveOnLoopback, withControl, replyJson10 } = require(path.join(__dirname, '..', 'fault-server', 'loopback.js'))

const LOCAL_ARN = 'arn:aws:dynamodb:ddblocal:000000000000:'

function parseArgs (argv) {
  const o = { dynamodb: null, accounts: new Map(), port: 0, portFile: null, ownerPid: 0, quiet: false }
  for (let i = 2; i < argv.length; i++) {
    const next = () => argv[++i]
    switch (argv[i]) {
      case '--dynamodb': o.dynamodb = new URL(next()); break
      case '--account': { const [ k, a ] = next().split('='); o.accounts.set(k, a); break }
      case '--port': o.port = Number(next()); break
      case '--port-file': o.portFile = next(); break
      case '--owner-pid': o.ownerPid = Number(next()); break
      case '--quiet': o.quiet = true; break
      default: process.stderr.write(`definition-server: unknown option ${argv[i]}\n`); process.exit(2)
    }
  }
  if (!o.dynamodb) { process.stderr.write('definition-server: --dynamodb is required\n'); process.exit(2) }
  return o
}

class ApiError extends Error {
  constructor (type, message, status = 400) { super(message); this.type = type; this.status = status }
}

const reply = replyJson10

function fail (res, e) {
  const prefix = e.type === 'AccessDeniedException' || e.type === 'UnknownOperationException'
    ? 'com.amazon.coral.service#' : 'com.amazonaws.dynamodb.v20120810#'
  reply(res, e.status, { __type: prefix + e.type, message: e.message })
}

// The caller's access key and region, from the SigV4 Authorization header's Credential.
function caller (req) {
  const m = /Credential=([^/]+)\/\d{8}\/([^/]+)\/(?:dynamodb|application-autoscaling)\//.exec(String(req.headers.authorization || ''))
  if (!m) throw new ApiError('MissingAuthenticationTokenException', 'Request is missing Authentication Token')
  return { akid: m[1], region: m[2] }
}

function main () {
  const opts = parseArgs(process.argv)
  const stats = { calls: {} }
  const tables = new Map() // "akid region name" -> { tags: [], pitr, pitrDays, pitrSince, policy, revision, sse, tableClass }
  const account = (who) => opts.accounts.get(who.akid) || '000000000000'
  const arnPrefix = (who) => `arn:aws:dynamodb:${who.region}:${account(who)}:`
  const keyOf = (who, name) => `${who.akid} ${who.region} ${name}`
  const state = (who, name) => {
    const k = keyOf(who, name)
    if (!tables.has(k)) tables.set(k, { tags: [], pitr: false, pitrDays: null, pitrSince: null, policy: null, revision: null, sse: null, tableClass: null })
    return tables.get(k)
  }

  // One request to DynamoDB Local: {status, body (parsed or null), raw}.
  function upstream (req, body) {
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: opts.dynamodb.host, 'content-length': String(body.length) }
      delete headers['accept-encoding'] // answers are read (and changed) here
      const up = http.request({ host: opts.dynamodb.hostname, port: opts.dynamodb.port, method: req.method, path: req.url, headers }, (ures) => {
        const chunks = []
        ures.on('data', (c) => chunks.push(c))
        ures.on('end', () => {
          const raw = Buffer.concat(chunks)
          let parsed = null
          try { parsed = JSON.parse(raw.toString('utf8')) } catch (e) { /* not JSON */ }
          resolve({ status: ures.statusCode, headers: ures.headers, body: parsed, raw })
        })
      })
      up.on('error', reject)
      up.end(body)
    })
  }

  // Does the caller's table exist (DescribeTable upstream, with the caller's own credentials)?
  async function exists (req, name) {
    const body = Buffer.from(JSON.stringify({ TableName: name }))
    const headers = { ...req.headers, 'x-amz-target': 'DynamoDB_20120810.DescribeTable', 'content-type': 'application/x-amz-json-1.0' }
    headers.authorization = String(headers.authorization || '').replace('/application-autoscaling/', '/dynamodb/')
    const r = await upstream({ method: 'POST', url: '/', headers }, body)
    return r.status === 200
  }

  // A ResourceArn of the caller's table: its name, else the errors AWS gives.
  async function tableOfArn (req, who, arn) {
    if (typeof arn !== 'string' || arn.length < 1 || arn.length > 1283) throw new ApiError('ValidationException', `1 validation error detected: Value '${arn}' at 'resourceArn' failed to satisfy constraint: Member must have length between 1 and 1283`)
    const m = /^arn:aws:dynamodb:([^:]+):(\d{12}):table\/([a-zA-Z0-9_.-]{3,255})$/.exec(arn)
    if (!m) throw new ApiError('ValidationException', `Invalid TableArn: Invalid ResourceArn provided as input ${arn}`)
    if (m[1] !== who.region || m[2] !== account(who)) throw new ApiError('AccessDeniedException', `User: arn:aws:iam::${account(who)}:user/test is not authorized to perform this operation on resource: ${arn} because no resource-based policy allows it`)
    if (!(await exists(req, m[3]))) throw new ApiError('ResourceNotFoundException', `Requested resource not found: ResourcePath: ${arn}`)
    return m[3]
  }

  async function tableOfName (req, name) {
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_.-]{3,255}$/.test(name)) throw new ApiError('ValidationException', `1 validation error detected: Value '${name}' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+`)
    if (!(await exists(req, name))) throw new ApiError('TableNotFoundException', `Table not found: ${name}`)
    return name
  }

  const backups = (t) => {
    const d = { PointInTimeRecoveryStatus: t.pitr ? 'ENABLED' : 'DISABLED' }
    if (t.pitr) {
      d.RecoveryPeriodInDays = t.pitrDays || 35
      d.EarliestRestorableDateTime = t.pitrSince
      d.LatestRestorableDateTime = Math.max(t.pitrSince, Date.now() / 1000 - 300)
    }
    return { ContinuousBackupsDescription: { ContinuousBackupsStatus: 'ENABLED', PointInTimeRecoveryDescription: d } }
  }

  const handlers = {
    async ListTagsOfResource (req, who, input) {
      const name = await tableOfArn(req, who, input.ResourceArn)
      return { Tags: state(who, name).tags.map((t) => ({ Key: t.Key, Value: t.Value })) }
    },
    async TagResource (req, who, input) {
      const name = await tableOfArn(req, who, input.ResourceArn)
      if (!Array.isArray(input.Tags) || input.Tags.length === 0) throw new ApiError('ValidationException', 'Atleast one Tag needs to be provided as Input.')
      const t = state(who, name)
      for (const tag of input.Tags) {
        if (typeof tag.Key !== 'string' || typeof tag.Value !== 'string') throw new ApiError('ValidationException', 'A tag needs a Key and a Value')
        t.tags = t.tags.filter((x) => x.Key !== tag.Key).concat([ { Key: tag.Key, Value: tag.Value } ])
      }
      if (t.tags.length > 50) throw new ApiError('ValidationException', 'The number of tags exceeds the limit of 50')
      return {}
    },
    async UntagResource (req, who, input) {
      const name = await tableOfArn(req, who, input.ResourceArn)
      const t = state(who, name)
      t.tags = t.tags.filter((x) => !(input.TagKeys || []).includes(x.Key))
      return {}
    },
    async DescribeContinuousBackups (req, who, input) {
      return backups(state(who, await tableOfName(req, input.TableName)))
    },
    async UpdateContinuousBackups (req, who, input) {
      const name = await tableOfName(req, input.TableName)
      const s = input.PointInTimeRecoverySpecification
      if (!s || typeof s.PointInTimeRecoveryEnabled !== 'boolean') throw new ApiError('ValidationException', "1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null")
      if (s.RecoveryPeriodInDays != null && !(Number.isInteger(s.RecoveryPeriodInDays) && s.RecoveryPeriodInDays >= 1 && s.RecoveryPeriodInDays <= 35)) throw new ApiError('ValidationException', 'RecoveryPeriodInDays must be between 1 and 35')
      const t = state(who, name)
      if (s.PointInTimeRecoveryEnabled && !t.pitr) t.pitrSince = Date.now() / 1000
      t.pitr = s.PointInTimeRecoveryEnabled
      t.pitrDays = t.pitr ? (s.RecoveryPeriodInDays || 35) : null
      return backups(t)
    },
    async GetResourcePolicy (req, who, input) {
      const t = state(who, await tableOfArn(req, who, input.ResourceArn))
      if (t.policy == null) throw new ApiError('PolicyNotFoundException', `Resource-based policy not found for the provided ResourceArn: ${input.ResourceArn}`)
      return { Policy: t.policy, RevisionId: t.revision }
    },
    async PutResourcePolicy (req, who, input) {
      const t = state(who, await tableOfArn(req, who, input.ResourceArn))
      let doc
      try { doc = JSON.parse(input.Policy) } catch (e) { throw new ApiError('ValidationException', 'Invalid policy document: not JSON') }
      if (!doc || !Array.isArray(doc.Statement)) throw new ApiError('ValidationException', 'Invalid policy document: no Statement')
      t.policy = input.Policy
      t.revision = String(Date.now()) + String(Math.floor(Math.random() * 1000)).padStart(3, '0')
      return { RevisionId: t.revision }
    },
    async DeleteResourcePolicy (req, who, input) {
      const t = state(who, await tableOfArn(req, who, input.ResourceArn))
      if (t.policy == null) throw new ApiError('PolicyNotFoundException', `Resource-based policy not found for the provided ResourceArn: ${input.ResourceArn}`)
      t.policy = null
      return {}
    },
  }

  // Application Auto Scaling (JSON 1.1, AnyScaleFrontendService), per account and region: the
  // scalable targets and scaling policies of the dynamodb namespace.
  const scaling = new Map() // "akid region" -> { targets: Map(id dim -> target), policies: [] }
  const scalingOf = (who) => {
    const k = `${who.akid} ${who.region}`
    if (!scaling.has(k)) scaling.set(k, { targets: new Map(), policies: [] })
    return scaling.get(k)
  }
  const DIMENSIONS = [ 'dynamodb:table:ReadCapacityUnits', 'dynamodb:table:WriteCapacityUnits',
    'dynamodb:index:ReadCapacityUnits', 'dynamodb:index:WriteCapacityUnits' ]
  function checkTarget (input) {
    if (input.ServiceNamespace !== 'dynamodb') throw new ApiError('ValidationException', `Unsupported service namespace ${input.ServiceNamespace} for these tests`)
    if (!DIMENSIONS.includes(input.ScalableDimension)) throw new ApiError('ValidationException', `1 validation error detected: Value '${input.ScalableDimension}' at 'scalableDimension' failed to satisfy constraint: Member must satisfy enum value set: [${DIMENSIONS.join(', ')}]`)
    const m = /^table\/([a-zA-Z0-9_.-]{3,255})(\/index\/([a-zA-Z0-9_.-]{3,255}))?$/.exec(String(input.ResourceId))
    if (!m || (m[2] != null) !== input.ScalableDimension.startsWith('dynamodb:index:')) throw new ApiError('ValidationException', `Unsupported resource ID or dimension: ${input.ResourceId} ${input.ScalableDimension}`)
    return m[1]
  }
  const scalingHandlers = {
    async RegisterScalableTarget (req, who, input) {
      const table = checkTarget(input)
      if (!(await exists(req, table))) throw new ApiError('ValidationException', `DynamoDB table ${table} does not exist`)
      const sc = scalingOf(who), key = `${input.ResourceId} ${input.ScalableDimension}`
      const old = sc.targets.get(key)
      if (!old && (input.MinCapacity == null || input.MaxCapacity == null)) throw new ApiError('ValidationException', 'Minimum and maximum capacity are required when registering a new scalable target')
      const t = old || { ServiceNamespace: 'dynamodb', ResourceId: input.ResourceId, ScalableDimension: input.ScalableDimension, RoleARN: `arn:aws:iam::${account(who)}:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable`, CreationTime: Date.now() / 1000, SuspendedState: { DynamicScalingInSuspended: false, DynamicScalingOutSuspended: false, ScheduledScalingSuspended: false }, ScalableTargetARN: `arn:aws:application-autoscaling:${who.region}:${account(who)}:scalable-target/${crypto.randomBytes(14).toString('hex')}` }
      if (input.MinCapacity != null) t.MinCapacity = input.MinCapacity
      if (input.MaxCapacity != null) t.MaxCapacity = input.MaxCapacity
      if (t.MinCapacity > t.MaxCapacity) throw new ApiError('ValidationException', 'Maximum capacity cannot be less than minimum capacity')
      if (input.SuspendedState) Object.assign(t.SuspendedState, input.SuspendedState)
      sc.targets.set(key, t)
      return { ScalableTargetARN: t.ScalableTargetARN }
    },
    async DescribeScalableTargets (req, who, input) {
      if (input.ServiceNamespace == null) throw new ApiError('ValidationException', "1 validation error detected: Value null at 'serviceNamespace' failed to satisfy constraint: Member must not be null")
      const all = [ ...scalingOf(who).targets.values() ].filter((t) => t.ServiceNamespace === input.ServiceNamespace &&
        (!input.ResourceIds || input.ResourceIds.includes(t.ResourceId)) && (!input.ScalableDimension || input.ScalableDimension === t.ScalableDimension))
      // one target a page, so that a client must follow NextToken
      const from = input.NextToken ? Number(input.NextToken) : 0
      const out = { ScalableTargets: all.slice(from, from + 1) }
      if (from + 1 < all.length) out.NextToken = String(from + 1)
      return out
    },
    async PutScalingPolicy (req, who, input) {
      checkTarget(input)
      const sc = scalingOf(who), key = `${input.ResourceId} ${input.ScalableDimension}`
      if (!sc.targets.has(key)) throw new ApiError('ObjectNotFoundException', `No scalable target registered for service namespace: dynamodb, resource ID: ${input.ResourceId}, scalable dimension: ${input.ScalableDimension}`)
      if (input.PolicyType !== 'TargetTrackingScaling' || !input.TargetTrackingScalingPolicyConfiguration || typeof input.TargetTrackingScalingPolicyConfiguration.TargetValue !== 'number') throw new ApiError('ValidationException', 'A TargetTrackingScaling policy with a TargetValue is what these tests take')
      const arn = `arn:aws:autoscaling:${who.region}:${account(who)}:scalingPolicy:${crypto.randomUUID()}:resource/dynamodb/${input.ResourceId}:policyName/${input.PolicyName}`
      sc.policies = sc.policies.filter((p) => !(p.ResourceId === input.ResourceId && p.ScalableDimension === input.ScalableDimension && p.PolicyName === input.PolicyName))
      sc.policies.push({ PolicyARN: arn, PolicyName: input.PolicyName, ServiceNamespace: 'dynamodb', ResourceId: input.ResourceId, ScalableDimension: input.ScalableDimension, PolicyType: 'TargetTrackingScaling', TargetTrackingScalingPolicyConfiguration: input.TargetTrackingScalingPolicyConfiguration, Alarms: [], CreationTime: Date.now() / 1000 })
      return { PolicyARN: arn, Alarms: [] }
    },
    async DescribeScalingPolicies (req, who, input) {
      if (input.ServiceNamespace == null) throw new ApiError('ValidationException', "1 validation error detected: Value null at 'serviceNamespace' failed to satisfy constraint: Member must not be null")
      return { ScalingPolicies: scalingOf(who).policies.filter((p) => (!input.ResourceId || p.ResourceId === input.ResourceId) &&
        (!input.ScalableDimension || p.ScalableDimension === input.ScalableDimension) && (!input.PolicyNames || input.PolicyNames.includes(p.PolicyName))) }
    },
  }

  // What DynamoDB Local accepts in CreateTable but does not describe.
  function remember (who, input) {
    const t = state(who, input.TableName)
    const sse = input.SSESpecification
    if (sse && sse.Enabled && sse.SSEType === 'KMS') {
      t.sse = sse.KMSMasterKeyId
        ? (sse.KMSMasterKeyId.startsWith('arn:') ? sse.KMSMasterKeyId : `arn:aws:kms:${who.region}:${account(who)}:key/${sse.KMSMasterKeyId}`)
        : `arn:aws:kms:${who.region}:${account(who)}:key/aws-dynamodb-managed`
    }
    if (input.TableClass) t.tableClass = input.TableClass
    if (Array.isArray(input.Tags)) t.tags = input.Tags.map((x) => ({ Key: x.Key, Value: x.Value }))
    if (typeof input.ResourcePolicy === 'string') { t.policy = input.ResourcePolicy; t.revision = String(Date.now()) }
  }

  function describe (who, table) {
    if (!table || !table.TableName) return
    const t = tables.get(keyOf(who, table.TableName))
    if (t && t.sse) table.SSEDescription = { Status: 'ENABLED', SSEType: 'KMS', KMSMasterKeyArn: t.sse }
    if (t && t.tableClass) table.TableClassSummary = { TableClass: t.tableClass }
  }

  // The local ARNs as the caller's account names them, and back.
  const toCaller = (who, text) => text.split(LOCAL_ARN).join(arnPrefix(who))
  const toLocal = (who, text) => text.split(arnPrefix(who)).join(LOCAL_ARN)

  async function proxy (req, res, body, op, who) {
    const input = (() => { try { return JSON.parse(body.toString('utf8')) } catch (e) { return null } })()
    const r = await upstream(req, Buffer.from(toLocal(who, body.toString('utf8'))))
    if (r.status === 200 && r.body && input) {
      if (op === 'CreateTable') remember(who, input)
      if (op === 'DeleteTable') tables.delete(keyOf(who, input.TableName))
      if (op === 'CreateTable') describe(who, r.body.TableDescription)
      if (op === 'DescribeTable') describe(who, r.body.Table)
    }
    const out = Buffer.from(toCaller(who, r.body ? JSON.stringify(r.body) : r.raw.toString('utf8')))
    const headers = { ...r.headers, 'content-length': String(out.length), 'x-amz-crc32': String(zlib.crc32(out)) }
    delete headers['transfer-encoding']
    res.writeHead(r.status, headers)
    res.end(out)
  }

  async function handleScaling (req, res, body, op) {
    stats.calls[op] = (stats.calls[op] || 0) + 1
    const out = (status, o) => {
      const b = Buffer.from(JSON.stringify(o))
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'content-length': b.length, 'x-amzn-requestid': crypto.randomUUID() })
      res.end(b)
    }
    try {
      if (!scalingHandlers[op]) throw new ApiError('UnknownOperationException', `Unknown operation ${op}`)
      const who = caller(req)
      let input
      try { input = JSON.parse(body.toString('utf8') || '{}') } catch (e) { throw new ApiError('SerializationException', 'Start of structure or map found where not expected.') }
      out(200, await scalingHandlers[op](req, who, input))
    } catch (e) {
      if (!(e instanceof ApiError)) return out(500, { __type: 'InternalServiceException', message: String(e.message || e) })
      out(e.status, { __type: e.type, message: e.message })
    }
  }

  async function handle (req, res, body) {
    const target = String(req.headers['x-amz-target'] || '')
    if (target.startsWith('AnyScaleFrontendService.')) return handleScaling(req, res, body, target.slice(24))
    const op = target.startsWith('DynamoDB_20120810.') ? target.slice(18) : ''
    stats.calls[op] = (stats.calls[op] || 0) + 1
    try {
      const who = caller(req)
      if (!handlers[op]) return await proxy(req, res, body, op, who)
      let input
      try { input = JSON.parse(body.toString('utf8') || '{}') } catch (e) { throw new ApiError('SerializationException', 'Start of structure or map found where not expected.') }
      reply(res, 200, await handlers[op](req, who, input))
    } catch (e) {
      if (!(e instanceof ApiError)) {
        if (!opts.quiet) process.stderr.write(`definition-server: ${op}: ${e.stack || e}\n`)
        return fail(res, new ApiError('InternalServerError', String(e.message || e), 500))
      }
      fail(res, e)
    }
  }

  const routes = {
    '/__stats': () => stats,
    '/__state': () => ({ tables: Object.fromEntries(tables), scaling: Object.fromEntries([ ...scaling ].map(([ k, v ]) => [ k, { targets: [ ...v.targets.values() ], policies: v.policies } ])) }),
  }
  const server = http.createServer(withControl(routes, (req, res, body) => { handle(req, res, body) }))
  serveOnLoopback(server, opts, 'definition-server', () => `DynamoDB at ${opts.dynamodb.host}`)
}

main()
