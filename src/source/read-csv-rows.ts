import { createReadStream } from 'node:fs';
import { finished } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import type { ZodType } from 'zod';
import { SourceError } from '../errors/source-error.ts';
import type { QuarantinedRow } from './quarantined-row.ts';
import type { SourceRow } from './source-row.ts';

/** What {@link readCsvRows} needs from a `CsvSource`. */
export interface CsvReadSpec<Row> {
  readonly header: readonly string[];
  readonly row: ZodType<Row>;
}

/** Line breaks inside one field: CRLF, a lone CR and a lone LF each end one line. */
const LINE_BREAK = /\r\n?|\n/g;

/** How many lines the fields of one record span beyond its first (quoted fields may hold line breaks). */
function extraLines(record: readonly string[]): number {
  let lines = 0;
  for (const field of record) {
    if (field.indexOf('\n') < 0 && field.indexOf('\r') < 0) continue;
    lines += field.match(LINE_BREAK)?.length ?? 0;
  }
  return lines;
}

/** A blank line as csv-parse reads it without `skip_empty_lines`: one empty, unquoted field. */
function isBlank(record: readonly string[], raw: string): boolean {
  return record.length === 1 && record[0] === '' && !raw.includes('"');
}

/** The record's own text, without the line breaks csv-parse keeps around it. */
function recordText(raw: string): string {
  return raw.replace(/^[\r\n]+|[\r\n]+$/g, '');
}

/**
 * Streams a CSV file through csv-parse and yields validated rows with their starting line.
 * A row with the wrong field count or a value the schema rejects goes to `quarantine`, naming
 * the line, the field and the rule, with the row's text as read. Memory stays flat: one record
 * at a time (plus csv-parse's and the file stream's buffers, 64 KiB each).
 *
 * Lines are counted here rather than taken from csv-parse's `info` (which builds two objects per
 * record and costs more than the parse itself): a record starts on the line after the previous
 * one ends, and spans one line more for each line break inside its quoted fields; blank lines
 * are read as records (`skip_empty_lines` off) only to be counted and skipped. `SourceRow.bytes`
 * is the file stream's read position, a little ahead of the record (for the progress bar).
 * `onRow` is called with each validated row before it is yielded.
 *
 * @throws SourceError when the file cannot be read, its header differs, or csv-parse cannot
 *   parse it at all (for example an unclosed quote), naming the file and line.
 */
export async function* readCsvRows<Row>(
  file: string,
  spec: CsvReadSpec<Row>,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  onRow?: (row: SourceRow<unknown>) => void,
): AsyncGenerator<SourceRow<Row>> {
  const input = createReadStream(file);
  const parser = input.pipe(parse({ bom: true, skip_empty_lines: false, relax_column_count: true, raw: true }));
  // Records are taken with `read()` while the parser holds some, waiting only when it holds
  // none: `for await` over the stream adds an async generator step (promises) per record.
  // `outcome`: undefined while records may come, null once the parser ended, else its error.
  let outcome: Error | null | undefined;
  let wake = (): void => {};
  const settle = (error?: Error | null): void => {
    outcome ??= error ?? null;
    wake();
  };
  parser.on('readable', () => wake());
  finished(parser, { writable: false }, settle);
  input.on('error', settle);
  const names = spec.header;
  const width = names.length;
  let header = true;
  let nextLine = 1;
  try {
    for (;;) {
      const item = parser.destroyed ? null : (parser.read() as { record: string[]; raw: string } | null);
      if (item === null) {
        if (outcome === null) break;
        if (outcome) throw outcome;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      const { record, raw } = item;
      const line = nextLine;
      // Only a quoted field can hold a line break; most records have none.
      nextLine += raw.includes('"') ? 1 + extraLines(record) : 1;
      if (isBlank(record, raw)) continue;
      if (header) {
        header = false;
        if (record.join(',') !== names.join(',')) {
          throw new SourceError(file, line, `header must be ${names.join(',')} (got ${record.join(',')})`);
        }
        continue;
      }
      if (record.length !== width) {
        await quarantine({ source: file, line, reason: `expected ${width} fields, found ${record.length}`, raw: recordText(raw) });
        continue;
      }
      const fields: Record<string, string> = {};
      for (let i = 0; i < width; i++) fields[names[i]!] = record[i]!;
      const parsed = spec.row.safeParse(fields);
      if (parsed.success) {
        const row = { line, value: parsed.data, bytes: input.bytesRead };
        onRow?.(row);
        yield row;
      } else {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.join('.');
        await quarantine({ source: file, line, reason: `${field}: ${issue.message} (got ${JSON.stringify(fields[field] ?? null)})`, raw: recordText(raw) });
      }
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    if (error instanceof CsvError) throw new SourceError(file, (error as CsvError & { lines?: number }).lines, error.message, error);
    throw new SourceError(file, undefined, (error as Error).message, error);
  } finally {
    parser.destroy();
    input.destroy();
  }
}
