#!/usr/bin/env node
// Not a floor: what grouping costs by itself. Reads a file through idem's CSV reader with the
// example pipeline's row schema (as an `idem run` extracts it), groups the lines by invoice
// number with `groupRows`, and drops the groups: no records, no database.
//
//   node bench/floors/group-rows-only.js FILE source|window|file
//
// `source` and `window` are groupRows' `over`, on plain rows (`source`: always the external
// sort). `file` groups as `idem run` does a file: the rows as RereadableRows, so a first pass
// groups without the sort, and, if it asks to be read again, a second pass on plain rows sorts.
//
// Prints one JSON line: { "groups": n, "rows": n, "passes": n, "ms": wall time, "cpuMs": user +
// system CPU } (groups and rows of the last pass).
import { performance } from 'node:perf_hooks';
import { groupRows } from '../../dist/src/source/group-rows.js';
import { readCsvRows } from '../../dist/src/source/csv/read-csv-rows.js';
import { RereadableRows } from '../../dist/src/source/rereadable-rows.js';
import { pipeline } from '../../dist/pipelines/online-retail-invoices.js';

const [file, over] = process.argv.slice(2);
if (!file || !['source', 'window', 'file'].includes(over)) {
  process.stderr.write('usage: node bench/floors/group-rows-only.js FILE source|window|file\n');
  process.exit(2);
}
const started = performance.now();
const cpu = process.cpuUsage();
let rows = 0;
let groups = 0;
let passes = 0;
for (let rereadable = over === 'file'; ; rereadable = false) {
  passes += 1;
  rows = 0;
  groups = 0;
  const lines = readCsvRows(file, pipeline.source, async (row) => {
    throw new Error(`${file}:${row.line}: ${row.reason}`);
  }, () => {
    rows += 1;
  });
  const marked = rereadable ? new RereadableRows(lines) : undefined;
  for await (const _group of groupRows(marked ?? lines, { key: (line) => line.InvoiceNo, over: over === 'window' ? 'window' : 'source' })) groups += 1;
  if (marked?.rereadReason === undefined) break;
}
const used = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({ groups, rows, passes, ms: Math.round(performance.now() - started), cpuMs: Math.round((used.user + used.system) / 1000) })}\n`);
