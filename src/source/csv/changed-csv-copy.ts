import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { changeOneValue } from '../change-one-value.ts';
import type { ChangedCopyRequest, ChangedSource } from '../source-kind.ts';
import type { CsvSource } from './csv-source.ts';

/** A field as CSV text (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * `idem prove`'s changed copy of a CSV source (see `SourceKind.changedCopy`): the file the run
 * read, written to `request.dir` with one value of its first record changed (see
 * `changeOneValue`) and every other byte as it was. The file is handled as bytes (each one a
 * character), so any ASCII-compatible encoding stays as it was. A run keyed by a date reads it
 * through `IDEM_SOURCE_DIR` (at the same path under it as the date's file under the source's
 * directory); one keyed by a file gets the copy as its `--file`.
 */
export function changedCsvCopy(source: CsvSource<unknown>, request: ChangedCopyRequest): ChangedSource | { readonly unchanged: string } {
  const { location, runKey } = request;
  if (source.row === undefined || source.header === undefined) return { unchanged: 'the CSV source declares no row schema' };
  const text = readFileSync(location).toString('latin1');
  const records = parse(text, { raw: true, info: true, bom: false, skip_empty_lines: true, relax_column_count: true }) as unknown as { record: string[]; raw: string; info: { bytes: number } }[];
  const [head, first] = records;
  if (head === undefined || first === undefined) return { unchanged: `${location} holds no record to change` };
  const names = source.headerMatch === 'position' ? source.header : head.record.map((name, i) => (i === 0 ? name.replace(/^\u00ef\u00bb\u00bf/, '') : name));
  const nulls = new Set(source.nullValues);
  const row = Object.fromEntries(names.map((name, i) => [name, nulls.has(first.record[i] ?? '') ? null : (first.record[i] ?? null)]));
  const found = changeOneValue(row, source.row, request.keep);
  if (!found) return { unchanged: `no field of the first record of ${location} can be changed to a value the row schema accepts` };
  const fields = first.record.map((field, i) => (names[i] === found.change.field ? String(found.change.to) : field));
  const end = first.info.bytes;
  const start = end - first.raw.length;
  const lead = /^[\r\n]*/.exec(first.raw)![0];
  const trail = /[\r\n]*$/.exec(first.raw)![0];
  const changed = `${text.slice(0, start)}${lead}${fields.map(csvField).join(',')}${trail}${text.slice(end)}`;
  const relative = runKey.kind === 'date' && source.fileForDate ? source.fileForDate(runKey.businessDate) : path.basename(location);
  const copy = path.join(request.dir, relative);
  mkdirSync(path.dirname(copy), { recursive: true });
  writeFileSync(copy, Buffer.from(changed, 'latin1'));
  const change = `first record, ${found.change.field}: ${JSON.stringify(found.change.from)} → ${JSON.stringify(found.change.to)}`;
  return runKey.kind === 'date' ? { change, env: { IDEM_SOURCE_DIR: request.dir } } : { change, file: copy };
}
