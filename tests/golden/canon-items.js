#!/usr/bin/env node
// Prints DynamoDB JSON lines canonically, to compare item sets: attributes sorted at every level,
// one item per line, lines sorted. `canon-items.js FILE...` prints the lines as they are;
// `canon-items.js --dir DIR` prints DIR/items.json as "put <item>" and DIR/deletes.json as
// "delete <item>" (what decode-public.js prints). Missing files are skipped.
"use strict";
const fs = require("fs");
const path = require("path");
const c = (v) => Array.isArray(v) ? "[" + v.map(c).join(",") + "]"
  : v && typeof v === "object" ? "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + c(v[k])).join(",") + "}"
  : JSON.stringify(v);
const args = process.argv.slice(2);
const files = args[0] === "--dir"
  ? [["items.json", "put "], ["deletes.json", "delete "]].map(([f, l]) => [path.join(args[1], f), l])
  : args.map((f) => [f, ""]);
const out = [];
for (const [f, label] of files) {
  if (!fs.existsSync(f)) continue;
  for (const line of fs.readFileSync(f, "utf8").split("\n"))
    if (line.trim()) out.push(label + c(JSON.parse(line)));
}
process.stdout.write(out.sort().join("\n") + (out.length ? "\n" : ""));
