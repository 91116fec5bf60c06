#!/usr/bin/env node
// The importer a Node user would write with the AWS SDK v3, for scale next to `ddbpipe import`:
// reads an Export-to-S3 style gzip file ({"Item":{...typed...}} per line), sends BatchWriteItem
// requests of 25 puts with up to N in flight, and resends UnprocessedItems. The items stay typed
// AttributeValues (no marshalling from plain JS values), so the SDK does the same work ddbpipe
// does: parse, serialise, SigV4, send, parse the answer. Bench only; not part of ddbpipe.
//   node bench/sdk-import.js FILE.json.gz --table T --endpoint http://127.0.0.1:PORT
//        [--concurrency 16]
// Prints: "sdk-import: N items, W s wall, C s CPU (user + system), U us of CPU per item".
'use strict'
const fs = require('fs')
const zlib = require('zlib')
const readline = require('readline')
const { DynamoDBClient, BatchWriteItemCommand } = require('@aws-sdk/client-dynamodb')

const BATCH = 25
const MAX_UNPROCESSED_ROUNDS = 10

function usage (msg) {
  if (msg) process.stderr.write(`sdk-import: ${msg}\n`)
  process.stderr.write('usage: node bench/sdk-import.js FILE.json.gz --table T --endpoint URL [--concurrency N]\n')
  process.exit(2)
}

function parseArgs (argv) {
  const opt = { concurrency: 16 }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = () => { if (i + 1 >= argv.length) usage(`${a} needs a value`); return argv[++i] }
    if (a === '--table') opt.table = value()
    else if (a === '--endpoint') opt.endpoint = value()
    else if (a === '--concurrency') opt.concurrency = Number(value())
    else if (a.startsWith('--')) usage(`unknown option ${a}`)
    else if (opt.file === undefined) opt.file = a
    else usage(`unexpected argument ${a}`)
  }
  if (!opt.file || !opt.table || !opt.endpoint) usage()
  if (!Number.isInteger(opt.concurrency) || opt.concurrency < 1) usage('--concurrency must be a positive integer')
  return opt
}

// DynamoDB JSON carries B and BS as base64 text; the SDK wants bytes (it base64-encodes them
// itself, and would encode a string's UTF-8 a second time).
function bytesFromBase64 (av) {
  if (av.B !== undefined) av.B = Buffer.from(av.B, 'base64')
  else if (av.BS !== undefined) av.BS = av.BS.map(b => Buffer.from(b, 'base64'))
  else if (av.M !== undefined) for (const k in av.M) bytesFromBase64(av.M[k])
  else if (av.L !== undefined) for (const v of av.L) bytesFromBase64(v)
  return av
}

function sleep (ms) { return new Promise(resolve => setTimeout(resolve, ms)) }

// Sends one batch, resending what DynamoDB leaves unprocessed with exponential backoff and
// full jitter (what AWS recommends for BatchWriteItem); the SDK retries errors itself.
async function writeBatch (client, table, requests) {
  let pending = requests
  for (let round = 0; ; round++) {
    const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: pending } }))
    const left = (out.UnprocessedItems && out.UnprocessedItems[table]) || []
    if (left.length === 0) return
    if (round + 1 >= MAX_UNPROCESSED_ROUNDS) {
      throw new Error(`${left.length} items still unprocessed after ${MAX_UNPROCESSED_ROUNDS} rounds`)
    }
    pending = left
    await sleep(Math.random() * Math.min(5000, 50 * 2 ** round))
  }
}

async function main () {
  const opt = parseArgs(process.argv.slice(2))
  const t0 = process.hrtime.bigint()
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: opt.endpoint,
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'bench',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'bench'
    }
  })

  const input = fs.createReadStream(opt.file).pipe(zlib.createGunzip())
  input.on('error', err => { process.stderr.write(`sdk-import: ${opt.file}: ${err.message}\n`); process.exit(1) })
  // The async iterator pauses the file and gunzip streams while the loop awaits, so memory stays
  // bounded by N batches in flight plus the stream buffers.
  const lines = readline.createInterface({ input, crlfDelay: Infinity })

  const inFlight = new Set()
  let failure = null
  let items = 0
  let lineNo = 0
  let batch = []
  const send = () => {
    const p = writeBatch(client, opt.table, batch)
      .catch(err => { failure = failure || err })
      .finally(() => inFlight.delete(p))
    inFlight.add(p)
    batch = []
  }

  for await (const line of lines) {
    lineNo++
    if (line.length === 0) continue
    let item
    try {
      item = JSON.parse(line).Item
    } catch (err) {
      throw new Error(`${opt.file}: line ${lineNo}: ${err.message}`)
    }
    if (item === null || typeof item !== 'object') throw new Error(`${opt.file}: line ${lineNo}: no "Item" object`)
    for (const k in item) bytesFromBase64(item[k])
    batch.push({ PutRequest: { Item: item } })
    items++
    if (batch.length === BATCH) {
      send()
      if (inFlight.size >= opt.concurrency) await Promise.race(inFlight)
    }
    if (failure) break
  }
  if (batch.length > 0 && !failure) send()
  await Promise.all(inFlight)
  client.destroy()
  if (failure) throw failure

  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  const cpu = process.cpuUsage()
  const cpuS = (cpu.user + cpu.system) / 1e6
  process.stdout.write(`sdk-import: ${items} items, ${wall.toFixed(2)} s wall, ${cpuS.toFixed(2)} s CPU ` +
    `(user + system), ${(items > 0 ? cpuS * 1e6 / items : 0).toFixed(2)} us of CPU per item\n`)
}

main().catch(err => {
  process.stderr.write(`sdk-import: ${err.name || 'Error'}: ${err.message}\n`)
  process.exit(1)
})
