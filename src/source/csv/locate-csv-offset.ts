import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import type { CsvEncoding } from './csv-source.ts';
import { decodeSourceText } from './decode-source-text.ts';

/** Where a byte of a CSV file is. */
export interface CsvLocation {
  /** The 1-based line the byte is on (CRLF, a lone CR and LF each end one line). */
  readonly line: number;
  /** The field the byte is in (its 0-based index in its record) and the field's text, when csv-parse could read the file up to there. */
  readonly field?: { readonly index: number; readonly value: string };
}

const LINE_BREAK = /\r\n?|\n/g;

/** Line breaks in `file` before `offset`, a chunk at a time; a CRLF cut by a chunk boundary counts once. */
async function lineBreaksBefore(file: string, offset: number): Promise<number> {
  let breaks = 0;
  let endedWithCr = false;
  for await (const chunk of createReadStream(file, { end: offset - 1 }) as AsyncIterable<Buffer>) {
    const text = chunk.toString('latin1');
    breaks += text.match(LINE_BREAK)?.length ?? 0;
    if (endedWithCr && text.startsWith('\n')) breaks -= 1;
    endedWithCr = text.endsWith('\r');
  }
  return breaks;
}

/** The field of one record's bytes (`record`) that holds the byte at `at`, decoded as `encoding`. */
function fieldIn(record: Buffer, at: number, encoding: CsvEncoding): CsvLocation['field'] {
  let found: CsvLocation['field'];
  parseSync(record, {
    encoding: 'latin1',
    relax_column_count: true,
    // `bytes` is where the field ends (its delimiter, or the end of the record).
    cast: (value, context) => {
      if (found === undefined && context.bytes > at) found = { index: Number(context.column), value: decodeSourceText(Buffer.from(value, 'latin1'), encoding) };
      return value;
    },
  });
  return found;
}

/**
 * Reads `file` again with csv-parse as the reader does (bytes read as latin1, so that a
 * record's raw text has one character per byte), adding up the records' lengths up to the one
 * that holds `offset`, then finds the field in that record alone. A record's raw text is its
 * bytes but for the second byte of a CRLF that ends it. No field when csv-parse fails before
 * it or a record is longer than `maxRecordBytes`.
 */
async function fieldAt(file: string, offset: number, encoding: CsvEncoding, maxRecordBytes: number, delimiter: string): Promise<CsvLocation['field']> {
  const input = createReadStream(file);
  const parser = input.pipe(parse({ encoding: 'latin1', delimiter, skip_empty_lines: false, relax_column_count: true, raw: true, max_record_size: maxRecordBytes }));
  let start = 0;
  try {
    for await (const { raw } of parser as AsyncIterable<{ raw: string }>) {
      const delimiter = parser.options.record_delimiter[0];
      const length = raw.length + (delimiter && delimiter.length > 1 && raw.charCodeAt(raw.length - 1) === delimiter[0] ? delimiter.length - 1 : 0);
      if (offset < start + length) return fieldIn(Buffer.from(raw, 'latin1'), offset - start, encoding);
      start += length;
    }
  } catch {
    // The file cannot be read as CSV up to there: the line alone must do.
  } finally {
    parser.destroy();
    input.destroy();
  }
  return undefined;
}

/**
 * The line and field of the byte at `offset` (from the start of the file, in bytes) of a CSV
 * file, for messages about a byte the reader refused. Reads the file again up to there: for
 * the error path only.
 */
export async function locateCsvOffset(file: string, offset: number, options: { encoding: CsvEncoding; maxRecordBytes: number; delimiter: string }): Promise<CsvLocation> {
  const line = 1 + (offset > 0 ? await lineBreaksBefore(file, offset) : 0);
  const field = await fieldAt(file, offset, options.encoding, options.maxRecordBytes, options.delimiter);
  return field ? { line, field } : { line };
}
