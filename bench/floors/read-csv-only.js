#!/usr/bin/env node
// Not a floor: what reading and validating a CSV file costs by itself. Reads a file through
// idem's CSV reader (`readCsvRows`) with the example pipeline's row schema, as an `idem run`
// extracts it, and drops the rows: no grouping, no records, no database.
//
//   node bench/floors/read-csv-only.js FILE [DIST]
//
// DIST is the built tree to take the reader from (default: this checkout's dist/), so two builds
// can be measured in one session, interleaved. Prints one JSON line: { "rows": n, "ms": wall
// time, "cpuMs": user + system CPU }.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [file, dist = path.join(import.meta.dirname, '../../dist')] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/floors/read-csv-only.js FILE [DIST]\n');
  process.exit(2);
}
const reader = path.join(dist, 'src/source/csv/read-csv-rows.js');
const { readCsvRows } = await import(pathToFileURL(reader).href);
const { pipeline } = await import(pathToFileURL(path.join(dist, 'pipelines/online-retail-invoices.js')).href);
const started = performance.now();
const cpu = process.cpuUsage();
let rows = 0;
const lines = readCsvRows(file, pipeline.source, async (row) => {
  throw new Error(`${file}:${row.line}: ${row.reason}`);
});
for await (const _row of lines) rows += 1;
const used = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({ rows, ms: Math.round(performance.now() - started), cpuMs: Math.round((used.user + used.system) / 1000) })}\n`);
