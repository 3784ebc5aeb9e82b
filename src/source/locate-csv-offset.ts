import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
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

/**
 * Reads `file` again with csv-parse (as the reader does, bytes read as latin1 so that each is
 * one character) up to the field that holds `offset`, and decodes that field as the source's
 * `encoding` (bytes that are not UTF-8 become U+FFFD). No field when csv-parse fails before
 * it or the record is longer than `maxRecordBytes`.
 */
async function fieldAt(file: string, offset: number, encoding: CsvEncoding, maxRecordBytes: number): Promise<CsvLocation['field']> {
  let found: CsvLocation['field'];
  const input = createReadStream(file);
  const parser = input.pipe(
    parse({
      encoding: 'latin1',
      skip_empty_lines: false,
      relax_column_count: true,
      max_record_size: maxRecordBytes,
      // `bytes` is where the field ends (its delimiter, or the end of the file).
      cast: (value, context) => {
        if (found === undefined && context.bytes > offset) found = { index: Number(context.column), value: decodeSourceText(Buffer.from(value, 'latin1'), encoding) };
        return value;
      },
    }),
  );
  try {
    for await (const _record of parser) if (found) break;
  } catch {
    // The file cannot be read as CSV up to there: the line alone must do.
  } finally {
    parser.destroy();
    input.destroy();
  }
  return found;
}

/**
 * The line and field of the byte at `offset` (from the start of the file, in bytes) of a CSV
 * file, for messages about a byte the reader refused. Reads the file again up to there: for
 * the error path only.
 */
export async function locateCsvOffset(file: string, offset: number, options: { encoding: CsvEncoding; maxRecordBytes: number }): Promise<CsvLocation> {
  const line = 1 + (offset > 0 ? await lineBreaksBefore(file, offset) : 0);
  const field = await fieldAt(file, offset, options.encoding, options.maxRecordBytes);
  return field ? { line, field } : { line };
}
