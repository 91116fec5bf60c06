// Runs each SQL argument in an in-memory DuckDB (npm @duckdb/node-api) and prints every row of
// its result as a JSON line (values as DuckDB's JSON form gives them: DECIMALs and big integers
// as exact text). Exit 1 on an error.
//   node duck-rows.js SQL...
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  for (const q of process.argv.slice(2))
    for (const r of (await c.runAndReadAll(q)).getRowObjectsJson()) console.log(JSON.stringify(r));
})().catch(e => { console.error(e.message); process.exit(1); });
