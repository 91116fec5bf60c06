#!/usr/bin/env node
// Compares two sets of DynamoDB JSON items exactly: attribute names, types and value text byte
// for byte (numbers are not normalised: "1.0" and "1" differ), in any attribute order and any
// item order; set members in any order (DynamoDB sets are unordered).
//   node same-items.js A.json -- B1.json B2.json ...     exit 0 when the same items
'use strict';
const fs = require('fs');

function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) {
      o[k] = ['SS', 'NS', 'BS'].includes(k) ? [...v[k]].sort() : canon(v[k]);
    }
    return o;
  }
  return v;
}
function items(files) {
  const out = [];
  for (const f of files)
    for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const j = JSON.parse(line);
      out.push(JSON.stringify(canon(j.Item || j)));
    }
  return out.sort();
}
const sep = process.argv.indexOf('--');
const a = items(process.argv.slice(2, sep)), b = items(process.argv.slice(sep + 1));
let diffs = 0;
for (let i = 0, j = 0; i < a.length || j < b.length;) {
  if (a[i] === b[j]) { i++; j++; continue; }
  if (j >= b.length || (i < a.length && a[i] < b[j])) {
    if (diffs++ < 3) console.error('only in A: ' + a[i].slice(0, 300));
    i++;
  } else {
    if (diffs++ < 3) console.error('only in B: ' + b[j].slice(0, 300));
    j++;
  }
}
if (diffs) {
  console.error(`${diffs} difference(s): ${a.length} items vs ${b.length}`);
  process.exit(1);
}
