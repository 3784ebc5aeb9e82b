#!/usr/bin/env node
// Not a floor but the other baseline: the script a TypeScript team would write by hand instead of
// idem (issue 18). It has none of idem's safety: no lock, no run key, no ledger, no change
// detection, no validation, no quarantine. What it does:
//   - reads every YYYY-MM-DD.csv of the data directory with csv-parse, `columns: true` (one object
//     per line, keyed by the header);
//   - groups the lines of every file into ONE Map by invoice number (the whole year in memory);
//   - totals as floats (`Number(price) * quantity`), the earliest time to UTC by luxon per invoice;
//   - writes with knex `insert … onConflict('invoice_no').merge()` in chunks of 1,000, one after
//     another, so every run rewrites every row (a rerun of unchanged files too).
//
//   node bench/floors/knex-script.js DATABASE_URL DATA_DIR
//
// The table `knex_invoices` is created by the caller before the first run (a team's migration,
// untimed; bench/knex-baseline.js). Run as its own process, twice (first load, full rerun); its
// wall time includes a process start-up, like idem's. Prints one JSON line:
// { files, lines, invoices, readMs, writeMs, rows }.
import { createReadStream, readdirSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const knexFactory = require('knex');
const { parse } = require('csv-parse');
const { DateTime } = require('luxon');

const [databaseUrl, dataDir] = process.argv.slice(2);
if (!databaseUrl || !dataDir) {
  process.stderr.write('usage: node bench/floors/knex-script.js DATABASE_URL DATA_DIR\n');
  process.exit(2);
}

const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });
const started = performance.now();
const files = readdirSync(dataDir).filter((f) => /^\d{4}-\d{2}-\d{2}\.csv$/.test(f)).sort();
const invoices = new Map();
let lines = 0;
for (const file of files) {
  for await (const line of createReadStream(path.join(dataDir, file)).pipe(parse({ columns: true, bom: true, skip_empty_lines: true }))) {
    lines += 1;
    let invoice = invoices.get(line.InvoiceNo);
    if (invoice === undefined) {
      invoice = { first: line, earliest: line.InvoiceDate, total: 0, lines: [] };
      invoices.set(line.InvoiceNo, invoice);
    }
    const quantity = Number(line.Quantity);
    const amount = Number(line.UnitPrice) * quantity;
    invoice.total += amount;
    if (line.InvoiceDate < invoice.earliest) invoice.earliest = line.InvoiceDate;
    invoice.lines.push({ stock_code: line.StockCode, description: line.Description, quantity, unit_price: line.UnitPrice, amount });
  }
}
const read = performance.now();

const rows = [];
for (const [invoiceNo, invoice] of invoices) {
  rows.push({
    invoice_no: invoiceNo,
    document_type: invoiceNo.startsWith('C') ? 'credit_note' : 'invoice',
    customer_id: invoice.first.CustomerID === '' ? null : invoice.first.CustomerID.replace(/\.0+$/, ''),
    country: invoice.first.Country,
    invoiced_at: DateTime.fromSQL(invoice.earliest, { zone: 'Europe/London' }).toUTC().toISO(),
    line_count: invoice.lines.length,
    total: invoice.total,
    lines: JSON.stringify(invoice.lines),
    updated_at: new Date(),
  });
}
let written = 0;
for (let i = 0; i < rows.length; i += 1000) {
  const chunk = rows.slice(i, i + 1000);
  await knex('knex_invoices').insert(chunk).onConflict('invoice_no').merge();
  written += chunk.length;
}
const done = performance.now();
await knex.destroy();
process.stdout.write(`${JSON.stringify({ files: files.length, lines, invoices: invoices.size, readMs: Math.round(read - started), writeMs: Math.round(done - read), rows: written })}\n`);
