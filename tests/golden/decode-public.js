#!/usr/bin/env node
// An independent decoder of the public samples (tests/golden/cases/public-*): it reads each
// format with its own small parsers (JSON keeping every number's text, RFC 4180 CSV), shares no
// code with ddbpipe, and prints the items it finds as canonical DynamoDB JSON lines (attributes
// sorted, lines sorted): "put <item>" and "delete <key>". tests/scripts/public_samples.sh compares
// them with what ddbpipe exports.
//
//   decode-public.js KIND PATH [options]
//     KIND: array | batch | get-item | workbench | dynamodump | csv
//     batch/workbench: --table NAME (default: the first table named)
//     csv: --columns a:N,b,... --allow-short-rows
"use strict";
const fs = require("fs");
const path = require("path");

// ---- JSON, numbers kept as {num: "text"} -------------------------------------------------------
function parseJson(text) {
  let i = 0;
  const ws = () => { while (i < text.length && " \t\r\n".includes(text[i])) i++; };
  const fail = (m) => { throw new Error(`JSON at ${i}: ${m}`); };
  function value() {
    ws();
    const c = text[i];
    if (c === "{") {
      i++; const o = []; ws();
      if (text[i] === "}") { i++; return { obj: o }; }
      for (;;) {
        ws(); const k = str(); ws();
        if (text[i++] !== ":") fail("expected :");
        o.push([k, value()]); ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i++] !== "}") fail("expected }");
        return { obj: o };
      }
    }
    if (c === "[") {
      i++; const a = []; ws();
      if (text[i] === "]") { i++; return { arr: a }; }
      for (;;) {
        a.push(value()); ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i++] !== "]") fail("expected ]");
        return { arr: a };
      }
    }
    if (c === '"') return { str: str() };
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (m && m[0].length) { i += m[0].length; return { num: m[0] }; }
    for (const [lit, v] of [["true", { bool: true }], ["false", { bool: false }], ["null", { nul: true }]])
      if (text.startsWith(lit, i)) { i += lit.length; return v; }
    fail("unexpected " + c);
  }
  function str() {
    if (text[i] !== '"') fail("expected a string");
    let j = i + 1, raw = "";
    while (text[j] !== '"') { if (text[j] === "\\") j++; j++; }
    raw = text.slice(i, j + 1);
    i = j + 1;
    return JSON.parse(raw); // a string literal alone: no numbers involved
  }
  const docs = [];
  ws();
  while (i < text.length) { docs.push(value()); ws(); }
  return docs;
}
const get = (o, k) => (o.obj.find(([n]) => n === k) || [])[1];

// plain JSON -> DynamoDB typed value
function typed(v) {
  if (v.str !== undefined) return { S: v.str };
  if (v.num !== undefined) return { N: v.num };
  if (v.bool !== undefined) return { BOOL: v.bool };
  if (v.nul) return { NULL: true };
  if (v.arr) return { L: v.arr.map(typed) };
  const m = {};
  for (const [k, x] of v.obj) m[k] = typed(x);
  return { M: m };
}
// DynamoDB JSON value (parsed) -> plain JS with number text kept
function ddb(v) {
  if (v.str !== undefined) return v.str;
  if (v.num !== undefined) return v.num;
  if (v.bool !== undefined || v.nul) return v.bool !== undefined ? v.bool : null;
  if (v.arr) return v.arr.map(ddb);
  const m = {};
  for (const [k, x] of v.obj) m[k] = ddb(x);
  return m;
}
const typedItem = (o) => { const m = {}; for (const [k, x] of o.obj) m[k] = typed(x); return m; };
const ddbItem = (o) => ddb(o);

const canon = (v) => Array.isArray(v) ? "[" + v.map(canon).join(",") + "]"
  : v && typeof v === "object" ? "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}"
  : JSON.stringify(v);

// ---- formats ----------------------------------------------------------------------------------
const args = process.argv.slice(2);
const kind = args[0], file = args[1];
const opt = (name) => { const k = args.indexOf(name); return k < 0 ? undefined : args[k + 1]; };
const puts = [], deletes = [];
const looksTyped = (o) => o.obj && o.obj.length && o.obj[0][1].obj && o.obj[0][1].obj.length === 1 &&
  ["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"].includes(o.obj[0][1].obj[0][0]);

function tables(map, want) {
  let chosen = want;
  for (const [table, list] of map.obj) {
    if (chosen === undefined) chosen = table;
    if (table !== chosen) continue;
    for (const req of list.arr) {
      const put = get(req, "PutRequest"), del = get(req, "DeleteRequest");
      if (put) puts.push(ddbItem(get(put, "Item")));
      else deletes.push(ddbItem(get(del, "Key")));
    }
  }
}

function csv(text, delim) {
  const rows = []; let row = [], cell = "", quoted = false, i = 0, inq = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (inq) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') inq = false;
      else cell += c;
    } else if (c === '"') { inq = true; quoted = true; }
    else if (c === delim) { row.push({ cell, quoted }); cell = ""; quoted = false; }
    else if (c === "\n") { row.push({ cell, quoted }); rows.push(row); row = []; cell = ""; quoted = false; }
    else if (c !== "\r") cell += c;
  }
  if (cell.length || row.length) { row.push({ cell, quoted }); rows.push(row); }
  return rows;
}

const text = kind === "dynamodump" ? null : fs.readFileSync(file, "utf8");
if (kind === "array") {
  for (const el of parseJson(text)[0].arr) puts.push(looksTyped(el) ? ddbItem(el) : typedItem(el));
} else if (kind === "get-item") {
  for (const doc of parseJson(text)) puts.push(ddbItem(get(doc, "Item")));
} else if (kind === "batch") {
  for (const doc of parseJson(text)) tables(get(doc, "RequestItems") || doc, opt("--table"));
} else if (kind === "workbench") {
  const model = parseJson(text)[0];
  let chosen = opt("--table");
  for (const t of get(model, "DataModel").arr) {
    const name = get(t, "TableName").str;
    if (chosen === undefined) chosen = name;
    if (name !== chosen) continue;
    const lists = [];
    for (const f of (get(t, "TableFacets") || { arr: [] }).arr) if (get(f, "TableData")) lists.push(get(f, "TableData"));
    if (get(t, "TableData")) lists.push(get(t, "TableData"));
    for (const l of lists) for (const it of l.arr) puts.push(ddbItem(it));
  }
} else if (kind === "dynamodump") {
  const dir = fs.statSync(path.join(file, "schema.json"), { throwIfNoEntry: false })
    ? file : path.join(file, fs.readdirSync(file)[0]);
  const pages = fs.readdirSync(path.join(dir, "data")).filter((n) => n.endsWith(".json")).sort();
  for (const p of pages)
    for (const it of get(parseJson(fs.readFileSync(path.join(dir, "data", p), "utf8"))[0], "Items").arr)
      puts.push(ddbItem(it));
} else if (kind === "csv") {
  const cols = opt("--columns").split(",").map((c) => {
    const k = c.lastIndexOf(":");
    return k > 0 ? { name: c.slice(0, k), type: c.slice(k + 1) } : { name: c, type: "S" };
  });
  for (const row of csv(text, ",")) {
    if (row.length < cols.length && !args.includes("--allow-short-rows")) continue;
    const item = {};
    row.forEach(({ cell, quoted }, k) => {
      if (cell === "" && !quoted) return;
      item[cols[k].name] = { [cols[k].type]: cols[k].type === "BOOL" ? cell === "true" : cell };
    });
    puts.push(item);
  }
} else {
  throw new Error("unknown kind " + kind);
}
const out = puts.map((p) => "put " + canon({ Item: p })).concat(deletes.map((d) => "delete " + canon({ Item: d })));
process.stdout.write(out.sort().join("\n") + (out.length ? "\n" : ""));
