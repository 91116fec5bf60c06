#!/usr/bin/env node
// The application that keeps writing while `migrate --live` runs (tests/integration/live.sh and
// bench/live.sh): AWS SDK v3 against a local DynamoDB, items of tests/integration/live/source.json.
//   node app.js create --endpoint URL --table T [--view NEW_AND_OLD_IMAGES|NEW_IMAGE|none]
//   node app.js seed   --endpoint URL --table T --users N
//   node app.js churn  --endpoint URL --table T --users N --seconds S --rate R [--seed X]
//                      [--stop-file F] [--concurrency C]
//   node app.js burst  --endpoint URL --table T --count N     (N new tags, BatchWriteItem, fast)
//   node app.js probe  --endpoint URL --table T --target T2 --seconds S
// probe writes a new tag every 200 ms and waits until it shows in T2 (the layout of target.json):
// prints the median, 95th percentile and largest of those delays (the migration's lag).
// churn writes about R changes a second for S seconds (or until file F exists), C writers each
// one change at a time: new tags, renamed tags and
// favorites whose type changes (both move the item in the target layout), other updates, deletes.
// Prints "app: N changes (P puts, M moves, U updates, D deletes)" at the end.
'use strict'
const {
  DynamoDBClient, CreateTableCommand, PutItemCommand, UpdateItemCommand, DeleteItemCommand,
  BatchWriteItemCommand, GetItemCommand
} = require('@aws-sdk/client-dynamodb')

function parseArgs (argv) {
  const o = { cmd: argv[0], users: 20, seconds: 5, rate: 100, seed: 1, view: 'NEW_AND_OLD_IMAGES', concurrency: 1, count: 1000 }
  for (let i = 1; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, '')
    o[k] = ['users', 'seconds', 'rate', 'seed', 'concurrency', 'count'].includes(k) ? Number(argv[i + 1]) : argv[i + 1]
  }
  if (!o.endpoint || !o.table) {
    process.stderr.write('usage: node app.js create|seed|churn --endpoint URL --table T ...\n')
    process.exit(2)
  }
  return o
}

// A small seeded generator, so a run can be repeated.
function rng (seed) {
  let s = seed >>> 0 || 1
  return () => { s ^= s << 13; s >>>= 0; s ^= s >> 17; s ^= s << 5; s >>>= 0; return s / 4294967296 }
}

const TYPES = ['video', 'image', 'audio', 'text']
const tag = (u, t, name, uses) => ({
  pk: { S: `USER#u${u}` }, sk: { S: `TAG#t${t}` }, tagName: { S: name }, uses: { N: String(uses) }
})
const fav = (u, d, type, title) => ({
  pk: { S: `USER#u${u}` }, sk: { S: `FAV#d${d}` }, dataType: { S: type }, title: { S: title }
})

async function create (db, o) {
  const req = {
    TableName: o.table,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST'
  }
  if (o.view !== 'none') req.StreamSpecification = { StreamEnabled: true, StreamViewType: o.view }
  await db.send(new CreateTableCommand(req))
}

async function seed (db, o) {
  for (let u = 0; u < o.users; u++) {
    for (let t = 0; t < 5; t++) await db.send(new PutItemCommand({ TableName: o.table, Item: tag(u, t, `name${t}`, t) }))
    for (let d = 0; d < 5; d++) await db.send(new PutItemCommand({ TableName: o.table, Item: fav(u, d, TYPES[d % 4], `title ${d}`) }))
  }
}

async function churn (db, o) {
  const n = { puts: 0, moves: 0, updates: 0, deletes: 0 }
  const writers = []
  for (let w = 0; w < o.concurrency; w++) writers.push(writer(db, o, n, o.seed + w * 7919))
  await Promise.all(writers)
  const total = n.puts + n.moves + n.updates + n.deletes
  process.stdout.write(`app: ${total} changes (${n.puts} puts, ${n.moves} moves, ${n.updates} updates, ${n.deletes} deletes)\n`)
}

async function burst (db, o) {
  const items = []
  for (let i = 0; i < o.count; i++) items.push(tag(1000 + Math.floor(i / 1000), i % 1000, `burst${i}`, i))
  const batches = []
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25))
  let next = 0
  const worker = async () => {
    while (next < batches.length) {
      let req = { [o.table]: batches[next++].map(Item => ({ PutRequest: { Item } })) }
      while (req && Object.keys(req).length) {
        const out = await db.send(new BatchWriteItemCommand({ RequestItems: req }))
        req = out.UnprocessedItems
      }
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
}

async function probe (db, o) {
  const delays = []
  const end = Date.now() + o.seconds * 1000
  for (let i = 0; Date.now() < end; i++) {
    const name = `probe${i}`
    const t0 = Date.now()
    await db.send(new PutItemCommand({ TableName: o.table, Item: tag(9999, i, name, i) }))
    const Key = { PK: { S: 'U#u9999' }, SK: { S: `TAGNAME#${name}#t${i}` } }
    for (;;) {
      const got = await db.send(new GetItemCommand({ TableName: o.target, Key }))
      if (got.Item) break
      if (Date.now() - t0 > 60000) throw new Error(`${name} not in ${o.target} after 60 s`)
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    delays.push((Date.now() - t0) / 1000)
    const rest = t0 + 200 - Date.now()
    if (rest > 0) await new Promise(resolve => setTimeout(resolve, rest))
  }
  delays.sort((a, b) => a - b)
  const at = q => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]
  process.stdout.write(`probe: ${delays.length} probes, lag median ${at(0.5).toFixed(2)} s, ` +
    `p95 ${at(0.95).toFixed(2)} s, max ${delays[delays.length - 1].toFixed(2)} s\n`)
}

async function writer (db, o, n, seed) {
  const r = rng(seed)
  const end = Date.now() + o.seconds * 1000
  const pause = 1000 * o.concurrency / o.rate
  let next = Date.now()
  const key = (u, prefix, id) => ({ pk: { S: `USER#u${u}` }, sk: { S: `${prefix}${id}` } })
  const fs = require('fs')
  while (Date.now() < end && !(o['stop-file'] && fs.existsSync(o['stop-file']))) {
    const u = Math.floor(r() * o.users)
    const id = Math.floor(r() * 8) // ids 5..7 are new items at first
    const what = r()
    const T = o.table
    if (what < 0.25) {
      await db.send(new PutItemCommand({ TableName: T, Item: tag(u, id, `new${Math.floor(r() * 100)}`, Math.floor(r() * 1000)) }))
      n.puts++
    } else if (what < 0.45) { // rename a tag: its target key moves
      await db.send(new UpdateItemCommand({
        TableName: T, Key: key(u, 'TAG#t', id), UpdateExpression: 'SET tagName = :n, uses = if_not_exists(uses, :z)',
        ExpressionAttributeValues: { ':n': { S: `renamed${Math.floor(r() * 100)}` }, ':z': { N: '0' } }
      }))
      n.moves++
    } else if (what < 0.6) { // a favorite changes type: its target partition moves
      await db.send(new PutItemCommand({ TableName: T, Item: fav(u, id, TYPES[Math.floor(r() * 4)], `t${Math.floor(r() * 100)}`) }))
      n.moves++
    } else if (what < 0.8) { // an update that moves nothing
      await db.send(new UpdateItemCommand({
        TableName: T, Key: key(u, 'TAG#t', id), UpdateExpression: 'SET uses = :u, tagName = if_not_exists(tagName, :n)',
        ExpressionAttributeValues: { ':u': { N: String(Math.floor(r() * 1e6)) + '.5' }, ':n': { S: 'fresh' } }
      }))
      n.updates++
    } else {
      await db.send(new DeleteItemCommand({ TableName: T, Key: key(u, r() < 0.5 ? 'TAG#t' : 'FAV#d', id) }))
      n.deletes++
    }
    next += pause
    const wait = next - Date.now()
    if (wait > 0) await new Promise(resolve => setTimeout(resolve, wait))
  }
}

async function main () {
  const o = parseArgs(process.argv.slice(2))
  const db = new DynamoDBClient({
    endpoint: o.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLETESTONLY', secretAccessKey: 'test-secret-not-real' }
  })
  if (o.cmd === 'create') await create(db, o)
  else if (o.cmd === 'seed') await seed(db, o)
  else if (o.cmd === 'churn') await churn(db, o)
  else if (o.cmd === 'burst') await burst(db, o)
  else if (o.cmd === 'probe') await probe(db, o)
  else throw new Error(`unknown command ${o.cmd}`)
}

main().catch(e => { process.stderr.write(`app: ${e.name}: ${e.message}\n`); process.exit(1) })
