import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { finished } from 'node:stream';
import { parse, type CsvError } from 'csv-parse';
import { SourceError } from '../../errors/source-error.ts';
import type { QuarantinedRow } from '../quarantined-row.ts';
import { csvLine } from '../../dialect/csv-line.ts';
import { CsvByteCheck, type CsvByteFault } from './csv-byte-check.ts';
import { createRowValidator } from '../create-row-validator.ts';
import { CSV_SOURCE_DEFAULTS, type CsvSource } from './csv-source.ts';
import { decodeSourceText } from './decode-source-text.ts';
import { describeValue } from '../describe-value.ts';
import { headerMismatch } from './header-mismatch.ts';
import { locateCsvOffset } from './locate-csv-offset.ts';
import type { SourceRow } from '../source-row.ts';

/** What {@link readCsvRows} needs from a `CsvSource`; options left out take `csvSource`'s defaults. */
export type CsvReadSpec<Row> = Required<Pick<CsvSource<Row>, 'header' | 'row'>> &
  Partial<Pick<CsvSource<Row>, 'encoding' | 'emptyFile' | 'lastLineBreak' | 'maxRecordBytes' | 'headerMatch' | 'nullValues'>>;
type CsvReadOptions = Required<Pick<CsvSource<unknown>, 'encoding' | 'emptyFile' | 'lastLineBreak' | 'maxRecordBytes'>>;

/** Line breaks inside one field: CRLF, a lone CR and a lone LF each end one line. */
const LINE_BREAK = /\r\n?|\n/g;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** Bytes of the file's start read for a message about its first line. */
const FIRST_LINE_BYTES = 64 * 1024;

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

/** The field at `index` for a message: its header name, or its position past the header. */
function fieldName(header: readonly string[], index: number): string {
  return header[index] ?? `field ${index + 1} (past the header's ${header.length})`;
}

/** The file's first line, decoded (a BOM dropped), for a header message when csv-parse could not read it. */
async function firstLine(file: string, encoding: CsvReadOptions['encoding']): Promise<string> {
  const handle = await open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(FIRST_LINE_BYTES), 0, FIRST_LINE_BYTES, 0);
    const text = decodeSourceText(buffer.subarray(0, bytesRead), encoding);
    return text.split(/\r|\n/, 1)[0]!;
  } finally {
    await handle.close();
  }
}

/**
 * Before anything is read: a file whose last byte is not a line break is refused as cut in
 * transfer (unless `lastLineBreak: 'optional'`), naming its last line and the field it ends in.
 * A 0-byte or BOM-only file is left to the empty-file rule.
 */
async function refuseCutFile(file: string, header: readonly string[], options: CsvReadOptions): Promise<void> {
  if (options.lastLineBreak === 'optional') return;
  const handle = await open(file);
  let size: number;
  let last: Buffer;
  try {
    size = (await handle.stat()).size;
    const length = Math.min(size, UTF8_BOM.length);
    last = (await handle.read(Buffer.alloc(length), 0, length, size - length)).buffer;
  } finally {
    await handle.close();
  }
  const bomOnly = size <= UTF8_BOM.length && last.equals(UTF8_BOM.subarray(0, size));
  if (size === 0 || bomOnly || last.at(-1) === 0x0a || last.at(-1) === 0x0d) return;
  const { line, field } = await locateCsvOffset(file, size - 1, options);
  const rule = 'the file does not end with a line break, so its last line looks cut off in transfer';
  const advice = "; if this source never ends its last line with one, declare lastLineBreak: 'optional'";
  throw new SourceError(file, line, field ? `${fieldName(header, field.index)}: ${rule} (got ${describeValue(field.value)})${advice}` : `${rule}${advice}`);
}

/**
 * Streams a CSV file through csv-parse and yields validated rows with their starting line.
 * A row with the wrong field count or a value the schema rejects goes to `quarantine`, naming
 * the line, the field and the rule, with the row's text as read (when the header was matched by
 * name and the file's differs from `header`, the row's declared fields in `header`'s order, so
 * `idem quarantine replay` reads it under `header`). The header is matched by name (every name
 * of `header` once, in any order, other fields not read) or by position (`headerMatch`); a field
 * equal to one of `nullValues` is given to the row schema as `null`. Memory stays flat: one record
 * at a time, at most `maxRecordBytes` (plus csv-parse's and the file stream's buffers).
 *
 * The file itself must be what the source says, or the run fails before any row past the fault
 * is read: a last line without a line break (checked first, before reading), no header line at
 * all (unless `emptyFile: 'no-rows'`), a header that differs (checked on the first record, before
 * csv-parse reads further, so a semicolon-delimited file is named as such), a byte sequence that
 * is not in the source's `encoding`, a NUL byte, a record over `maxRecordBytes`, a file csv-parse
 * cannot parse. The bytes are checked a chunk at a time before csv-parse reads them
 * ({@link CsvByteCheck}); a fault is located (line, field, value) by reading the file again.
 *
 * The file is fed to csv-parse a chunk at a time and its records are taken with `read()` until
 * it holds none (csv-parse parses a written chunk at once): records come in file order, so the
 * header is checked, and the rows before a fault are read, before the fault is reported.
 * Lines are counted here rather than taken from csv-parse's `info` (which builds two objects per
 * record and costs more than the parse itself): a record starts on the line after the previous
 * one ends, and spans one line more for each line break inside its quoted fields; blank lines
 * are read as records (`skip_empty_lines` off) only to be counted and skipped. `SourceRow.bytes`
 * is the file stream's read position, a little ahead of the record (for the progress bar).
 * `onRow` is called with each validated row before it is yielded.
 *
 * @throws SourceError naming the file and line (and the field and value where there is one)
 *   for every refusal above, and when the file cannot be read.
 */
export async function* readCsvRows<Row>(
  file: string,
  spec: CsvReadSpec<Row>,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  onRow?: (row: SourceRow<unknown>) => void,
): AsyncGenerator<SourceRow<Row>> {
  const options: CsvReadOptions = {
    encoding: spec.encoding ?? CSV_SOURCE_DEFAULTS.encoding,
    emptyFile: spec.emptyFile ?? CSV_SOURCE_DEFAULTS.emptyFile,
    lastLineBreak: spec.lastLineBreak ?? CSV_SOURCE_DEFAULTS.lastLineBreak,
    maxRecordBytes: spec.maxRecordBytes ?? CSV_SOURCE_DEFAULTS.maxRecordBytes,
  };
  const names = spec.header;
  const byName = (spec.headerMatch ?? CSV_SOURCE_DEFAULTS.headerMatch) === 'name';
  const nullValues = new Set(spec.nullValues ?? CSV_SOURCE_DEFAULTS.nullValues);
  const validate = createRowValidator(spec.row, names);
  // The file's field index of each name of `header`, and how many fields its records have.
  let indexes = names.map((_, i) => i);
  let width = names.length;
  let reordered = false;
  const input = createReadStream(file);
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const bytes = new CsvByteCheck(options.encoding);
  const parser = parse({ bom: true, skip_empty_lines: false, relax_column_count: true, raw: true, max_record_size: options.maxRecordBytes });
  // `ended`: once the parser has emitted 'end' (or failed: `parser.errored`); `inputDone`: once
  // the file is read to its end and the parser told so.
  let ended = false;
  let wake = (): void => {};
  parser.on('readable', () => wake());
  finished(parser, { writable: false }, () => {
    ended = true;
    wake();
  });
  let fault: CsvByteFault | undefined;
  let inputDone = false;
  let header = true;
  let nextLine = 1;

  /** The refusal for a byte fault: its line, field, byte offset and value. */
  const byteFaultError = async (found: CsvByteFault): Promise<SourceError> => {
    const { line, field } = await locateCsvOffset(file, found.offset, options);
    const hex = [...found.bytes].map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
    const rule =
      found.kind === 'nul'
        ? `a NUL byte (0x00) at byte offset ${found.offset}: a text source must not hold one`
        : `bytes that are not UTF-8 (${hex}) at byte offset ${found.offset}: the file is not UTF-8`;
    const got = field ? ` (got ${describeValue(field.value)})` : '';
    const advice = found.kind === 'invalid-utf-8' ? "; if the source writes windows-1252 or latin1, declare encoding: 'windows-1252'" : '';
    return new SourceError(file, line, `${field ? `${fieldName(names, field.index)}: ` : ''}${rule}${got}${advice}`);
  };

  /** The refusal for csv-parse's error, at the line where the record it was reading starts. */
  const parseError = async (error: CsvError): Promise<SourceError> => {
    if (error.code === 'CSV_MAX_RECORD_SIZE') {
      const field = fieldName(names, Number(error.column));
      const got = typeof error.raw === 'string' ? ` (got ${describeValue(recordText(error.raw))})` : '';
      return new SourceError(file, nextLine, `${field}: a record longer than ${options.maxRecordBytes} bytes, the source's maxRecordBytes${got}`);
    }
    // A first line csv-parse cannot read is no header: say what was expected.
    const first = header ? await firstLine(file, options.encoding) : undefined;
    if (first !== undefined && first !== names.join(',')) return new SourceError(file, nextLine, headerMismatch(names, first), error);
    return new SourceError(file, nextLine, error.message, error);
  };

  try {
    await refuseCutFile(file, names, options);
    for (;;) {
      const item = parser.read() as { record: string[]; raw: string } | null;
      if (item === null) {
        if (parser.errored) throw await parseError(parser.errored as CsvError);
        if (fault) throw await byteFaultError(fault);
        if (ended) break;
        if (inputDone) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          continue;
        }
        const next = await chunks.next();
        if (next.done) {
          fault = bytes.end();
          if (!fault) parser.end();
          inputDone = true;
        } else {
          const checked = bytes.next(next.value);
          fault = checked.fault;
          parser.write(checked.text);
        }
        continue;
      }
      const { record, raw } = item;
      const line = nextLine;
      // Only a quoted field can hold a line break; most records have none.
      nextLine += raw.includes('"') ? 1 + extraLines(record) : 1;
      if (isBlank(record, raw)) continue;
      if (header) {
        header = false;
        if (record.join(',') === names.join(',')) continue;
        if (!byName) throw new SourceError(file, line, headerMismatch(names, recordText(raw)));
        const missing = names.filter((name) => !record.includes(name));
        if (missing.length > 0) throw new SourceError(file, line, headerMismatch(names, recordText(raw), missing));
        const twice = names.find((name) => record.indexOf(name) !== record.lastIndexOf(name));
        if (twice !== undefined) throw new SourceError(file, line, `header names ${twice} more than once (got ${recordText(raw)}): which one to read is not clear`);
        indexes = names.map((name) => record.indexOf(name));
        width = record.length;
        reordered = true;
        continue;
      }
      if (record.length !== width) {
        await quarantine({ source: file, line, reason: `expected ${width} fields, found ${record.length}`, raw: recordText(raw) });
        continue;
      }
      const fields: Record<string, string | null> = {};
      for (let i = 0; i < names.length; i++) {
        const text = record[indexes[i]!]!;
        // Looked up only when there are null tokens: hashing every field's text costs.
        fields[names[i]!] = nullValues.size > 0 && nullValues.has(text) ? null : text;
      }
      const checked = validate(fields);
      if (checked.ok) {
        const row = { line, value: checked.row, bytes: input.bytesRead };
        onRow?.(row);
        yield row;
      } else {
        const value = fields[checked.field];
        const text = reordered ? csvLine(indexes.map((i) => record[i]!)).slice(0, -1) : recordText(raw);
        await quarantine({ source: file, line, reason: `${checked.field}: ${checked.message} (got ${value === undefined || value === null ? 'null' : describeValue(value)})`, raw: text });
      }
    }
    if (header && options.emptyFile === 'error') {
      throw new SourceError(
        file,
        undefined,
        `the file has no header line (${input.bytesRead === 0 ? '0 bytes' : 'only a BOM or blank lines'}): a writer that failed before its first line leaves such a file; if an empty file means no rows for this source, declare emptyFile: 'no-rows'`,
      );
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(file, undefined, (error as Error).message, error);
  } finally {
    parser.destroy();
    input.destroy();
  }
}
