// Runs an export folder's _ddbpipe/schema/load.duckdb.sql in DuckDB (npm @duckdb/node-api) and
// checks every number column against the DynamoDB JSON items the export read, exactly: each
// value compared as a decimal (sign, digits, exponent), never through a double; and sum() of
// the 38-digit column equal to the exact sum computed here with BigInt.
//   node load-exact.js OUT_DIR ITEMS.json
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require(path.join(__dirname, '../../../node_modules/@duckdb/node-api'));

// "-0012.3400E+2" -> "-1234" ; "0.5" -> "5E-1": the value, one spelling per number
function canon(text) {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
    if (!m) throw new Error(`not a number: ${text}`);
    let digits = (m[2] || '') + (m[3] || '');
    let exp = BigInt(m[4] || 0) - BigInt((m[3] || '').length);
    digits = digits.replace(/^0+/, '');
    if (digits === '') return '0';
    const trail = digits.length - digits.replace(/0+$/, '').length;
    digits = digits.slice(0, digits.length - trail);
    exp += BigInt(trail);
    return `${m[1] === '-' ? '-' : ''}${digits}E${exp}`;
}

async function main() {
    const [out, itemsFile] = process.argv.slice(2);
    const items = fs.readFileSync(itemsFile, 'utf8').split('\n').filter(Boolean)
        .map((l) => JSON.parse(l).Item);
    process.chdir(out);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(fs.readFileSync('_ddbpipe/schema/load.duckdb.sql', 'utf8'));
    const types = (await c.runAndReadAll(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'Reading'"))
        .getRows();
    const rows = (await c.runAndReadAll(`SELECT id, big::VARCHAR, frac::VARCHAR, mixed::VARCHAR,
        huge::VARCHAR, nums::VARCHAR[], hugeset::VARCHAR[], note, meta::VARCHAR, late::VARCHAR
        FROM Reading`))
        .getRowsJson();
    let bad = 0, checked = 0;
    const byId = new Map(rows.map((r) => [r[0], r]));
    const fields = ['big', 'frac', 'mixed', 'huge', 'nums', 'hugeset'];
    const late = 9; // the column after note and meta
    for (const item of items) {
        const id = item.pk.S.replace(/^r#/, '');
        const row = byId.get(id);
        if (!row) { console.error(`record ${id} missing`); bad++; continue; }
        fields.forEach((f, i) => {
            const want = item[f] ? (item[f].N !== undefined ? [item[f].N] : item[f].NS) : null;
            let got = row[i + 1];
            if (got !== null && !Array.isArray(got)) got = [got];
            if (want === null || got === null) {
                if (want !== got) { console.error(`${id}.${f}: want ${want} got ${got}`); bad++; }
                return;
            }
            const w = want.map(canon).sort(), g = got.map(String).map(canon).sort();
            checked += w.length;
            if (JSON.stringify(w) !== JSON.stringify(g)) {
                console.error(`${id}.${f}: want ${want.join(' ')} got ${got.join(' ')}`);
                bad++;
            }
        });
        if (item.note && row[7] !== item.note.S) { console.error(`${id}.note: ${row[7]}`); bad++; }
        const wantLate = item.late ? canon(item.late.N) : null;
        if ((row[late] === null ? null : canon(row[late])) !== wantLate) {
            console.error(`${id}.late: want ${wantLate} got ${row[late]}`);
            bad++;
        }
        checked += item.late ? 1 : 0;
    }
    if (rows.length !== items.length) { console.error(`${rows.length} rows, ${items.length} items`); bad++; }
    // sum() over the 38-digit column, in DuckDB's own DECIMAL arithmetic
    const want = items.filter((i) => i.big).reduce((s, i) => s + BigInt(i.big.N), 0n);
    const got = (await c.runAndReadAll('SELECT sum(big)::VARCHAR FROM Reading')).getRows()[0][0];
    if (canon(got) !== canon(want.toString())) { console.error(`sum(big) ${got}, want ${want}`); bad++; }
    if (bad) {
        console.error(`column types: ${JSON.stringify(types)}`);
        process.exit(1);
    }
    console.log(`${checked} numbers exact; sum(big) = ${got}; types ${types.map((t) => t.join(' ')).join(', ')}`);
}
main().catch((e) => { console.error(e); process.exit(1); });
