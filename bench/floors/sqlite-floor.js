#!/usr/bin/env node
// The hand-written SQLite floor. SQLite has no COPY / LOAD DATA, so the floor is in Node: the raw
// CSV parsed by csv-parse, each line inserted with one prepared better-sqlite3 statement inside
// one transaction, then one INSERT … SELECT … GROUP BY invoice_no … ON CONFLICT DO UPDATE … WHERE
// … IS NOT into the target table idem migrated. Same record as the pipeline (see
// postgres-floor.js): SQLite has no decimal type, so amounts are summed as integer thousandths
// (the data's prices have at most 3 decimals) and written as text with 3 decimals, as idem's
// SQLite column holds them; London → UTC by a CASE over luxon's offsets (lib/london-offsets.js).
//
//   node bench/floors/sqlite-floor.js DB_FILE CSV_FILE OFFSETS_JSON_FILE
//
// OFFSETS_JSON_FILE holds localOffsetRanges('Europe/London', …) computed by the caller, so this
// process does no set-up work a hand-written floor would not. Run as its own process by the year
// import (its time includes a process start-up, like psql's and idem's). Prints one JSON line:
// { loadMs, insertMs, rows }.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { offsetMinutesSql } from '../lib/london-offsets.js';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');
const { parse } = require('csv-parse');

/** SQL text of an integer count of thousandths `x` as a decimal with 3 places ("-12.300"). */
const milliText = (x) => `printf('%s%d.%03d', case when (${x}) < 0 then '-' else '' end, abs(${x}) / 1000, abs(${x}) % 1000)`;
const MILLI_PRICE = 'cast(round(cast(unit_price as real) * 1000) as integer)';
const BUSINESS = ['document_type', 'customer_id', 'country', 'invoiced_at', 'line_count', 'total', 'lines'];

function upsertSql(offsetSql, runKey) {
  return `insert into online_retail_invoices
  (source_system, source_reference, document_type, customer_id, country, invoiced_at, line_count, total, lines,
   row_hash, first_run_key, last_changed_run_key, created_at, updated_at)
select 'online-retail', g.invoice_no, g.document_type, f.customer_id, f.country, g.invoiced_at, g.line_count, g.total, g.lines,
       sha256(concat_ws('|', g.invoice_no, g.document_type, coalesce(f.customer_id, '\\N'), f.country, g.invoiced_at, g.line_count, g.total, g.lines)),
       '${runKey}', '${runKey}', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
from (
  select invoice_no,
         case when invoice_no like 'C%' then 'credit_note' else 'invoice' end as document_type,
         min(ln) as first_ln,
         strftime('%Y-%m-%dT%H:%M:%fZ', min(invoice_date), printf('%+d minutes', -${offsetSql.replaceAll('$D', 'min(invoice_date)')})) as invoiced_at,
         count(*) as line_count,
         ${milliText(`sum(${MILLI_PRICE} * quantity)`)} as total,
         json_group_array(json_object('stock_code', stock_code, 'description', description, 'quantity', quantity,
           'unit_price', unit_price, 'amount', ${milliText(`${MILLI_PRICE} * quantity`)}) order by ln) as lines
  from raw_lines
  group by invoice_no
) g
join raw_lines f on f.ln = g.first_ln
where true
on conflict (source_system, source_reference) do update set
  ${BUSINESS.map((c) => `${c} = excluded.${c}`).join(', ')},
  row_hash = excluded.row_hash, last_changed_run_key = excluded.last_changed_run_key, updated_at = excluded.updated_at
where (${BUSINESS.join(', ')}) is not (${BUSINESS.map((c) => `excluded.${c}`).join(', ')})`;
}

const [dbFile, csvFile, offsetsFile] = process.argv.slice(2);
if (!dbFile || !csvFile || !offsetsFile) {
  process.stderr.write('usage: node bench/floors/sqlite-floor.js DB_FILE CSV_FILE OFFSETS_JSON_FILE\n');
  process.exit(2);
}
const db = new Database(dbFile);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.function('sha256', { deterministic: true }, (text) => createHash('sha256').update(text).digest('hex'));
db.exec(`create temp table raw_lines (ln integer primary key, invoice_no text not null, stock_code text not null,
  description text not null, quantity integer not null, invoice_date text not null, unit_price text not null,
  customer_id text, country text not null)`);
const upsert = upsertSql(offsetMinutesSql('$D', JSON.parse(readFileSync(offsetsFile, 'utf8'))), 'floor');

const started = performance.now();
const insert = db.prepare('insert into raw_lines (invoice_no, stock_code, description, quantity, invoice_date, unit_price, customer_id, country) values (?, ?, ?, ?, ?, ?, ?, ?)');
let rows = 0;
db.exec('begin');
for await (const r of createReadStream(csvFile).pipe(parse({ from_line: 2, bom: true }))) {
  const customer = r[6].replace(/\.0+$/, '');
  insert.run(r[0], r[1], r[2], Number(r[3]), r[4], r[5], customer === '' ? null : customer, r[7]);
  rows += 1;
}
const loaded = performance.now();
db.prepare(upsert).run();
db.exec('commit');
const done = performance.now();
db.close();
process.stdout.write(`${JSON.stringify({ loadMs: Math.round(loaded - started), insertMs: Math.round(done - loaded), rows })}\n`);
