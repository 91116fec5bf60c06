#!/usr/bin/env node
// A DynamoDB stand-in that answers at once, for measuring the importer's own CPU: DescribeTable
// gives an ACTIVE table (pk S, sk S), BatchWriteItem accepts every item ({"UnprocessedItems":{}}
// with ConsumedCapacity), every answer carries x-amz-crc32 as DynamoDB's do. It counts items,
// BatchWriteItem requests and their body bytes (target Stats answers them).
//   node bench/sink.js PORTFILE [TABLE]
'use strict'
const http = require('http')
const fs = require('fs')
const zlib = require('zlib')
const [portFile, table = 'bench'] = process.argv.slice(2)
let items = 0
let requests = 0
let bytes = 0
function answer (res, obj) {
  const body = Buffer.from(JSON.stringify(obj))
  res.writeHead(200, {
    'Content-Type': 'application/x-amz-json-1.0',
    'x-amz-crc32': String(zlib.crc32(body) >>> 0),
    'Content-Length': body.length
  })
  res.end(body)
}
const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', c => chunks.push(c))
  req.on('end', () => {
    const target = String(req.headers['x-amz-target'] || '').split('.').pop()
    if (target === 'DescribeTable') {
      return answer(res, {
        Table: {
          TableName: table, TableStatus: 'ACTIVE', ItemCount: 0, TableSizeBytes: 0,
          TableArn: `arn:aws:dynamodb:us-east-1:000000000000:table/${table}`,
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
          BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' }
        }
      })
    }
    if (target === 'BatchWriteItem') {
      // count the requests without parsing the items: one PutRequest/DeleteRequest key each
      const body = Buffer.concat(chunks)
      const text = body.toString()
      const n = (text.match(/"(PutRequest|DeleteRequest)"/g) || []).length
      items += n
      requests++
      bytes += body.length
      return answer(res, { UnprocessedItems: {}, ConsumedCapacity: [{ TableName: table, CapacityUnits: n }] })
    }
    if (target === 'Stats') return answer(res, { items, requests, bytes })
    res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' })
    res.end(JSON.stringify({ __type: 'com.amazon.coral.validate#ValidationException', message: `unknown ${target}` }))
  })
})
server.keepAliveTimeout = 60000
server.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(server.address().port)))
