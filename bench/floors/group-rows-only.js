#!/usr/bin/env node
// Not a floor: what grouping costs by itself. Reads a file through idem's CSV reader with the
// example pipeline's row schema (as an `idem run` extracts it), groups the lines by invoice
// number with `groupRows` (`over` as given), and drops the groups: no records, no database.
//
//   node bench/floors/group-rows-only.js FILE source|window
//
// Prints one JSON line: { "groups": n, "rows": n, "ms": wall time, "cpuMs": user + system CPU }.
import { performance } from 'node:perf_hooks';
import { groupRows } from '../../dist/src/source/group-rows.js';
import { readCsvRows } from '../../dist/src/source/read-csv-rows.js';
import { pipeline } from '../../dist/pipelines/online-retail-invoices.js';

const [file, over] = process.argv.slice(2);
if (!file || (over !== 'source' && over !== 'window')) {
  process.stderr.write('usage: node bench/floors/group-rows-only.js FILE source|window\n');
  process.exit(2);
}
const started = performance.now();
const cpu = process.cpuUsage();
let rows = 0;
let groups = 0;
const lines = readCsvRows(file, pipeline.source, async (row) => {
  throw new Error(`${file}:${row.line}: ${row.reason}`);
}, () => {
  rows += 1;
});
for await (const _group of groupRows(lines, { key: (line) => line.InvoiceNo, over })) groups += 1;
const used = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({ groups, rows, ms: Math.round(performance.now() - started), cpuMs: Math.round((used.user + used.system) / 1000) })}\n`);
