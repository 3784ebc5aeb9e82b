#!/usr/bin/env node
// Not a floor: the share of the year import that idem's CSV library takes before idem does
// anything. Reads the file through csv-parse exactly as idem's extract configures it (BOM, no
// empty-line skipping, relaxed column count, raw records) and takes every record with `read()`,
// as idem does, then drops it: no validation, no records, no database.
//
//   node bench/floors/csv-parse-only.js FILE
//
// Prints one JSON line: { "records": n, "ms": the read's wall time }.
import { createReadStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import { parse } from 'csv-parse';

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/floors/csv-parse-only.js FILE\n');
  process.exit(2);
}
const started = performance.now();
const parser = createReadStream(file).pipe(parse({ bom: true, skip_empty_lines: false, relax_column_count: true, raw: true }));
let records = 0;
parser.on('readable', () => {
  while (parser.read() !== null) records += 1;
});
await finished(parser, { writable: false });
process.stdout.write(`${JSON.stringify({ records, ms: Math.round(performance.now() - started) })}\n`);
