import { createHash, type Hash } from 'node:crypto';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { parse, type CsvError, type Parser } from 'csv-parse';
import { SourceChangedError } from '../../errors/source-changed-error.ts';
import { SourceError } from '../../errors/source-error.ts';
import { UnreadableFileError } from '../../errors/unreadable-file-error.ts';
import { fileVersionChange, fileVersionOf, type FileVersion } from '../file-version.ts';
import type { UnchangedFileCalls } from '../unchanged-file-check.ts';
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
  Partial<Pick<CsvSource<Row>, 'encoding' | 'emptyFile' | 'lastLineBreak' | 'maxRecordBytes' | 'headerMatch' | 'nullValues' | 'delimiter'>>;
type CsvReadOptions = Required<Pick<CsvSource<unknown>, 'encoding' | 'emptyFile' | 'lastLineBreak' | 'maxRecordBytes' | 'delimiter'>>;

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
  const handle = await openSourceFile(file);
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
  const handle = await openSourceFile(file);
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
 * Three stages: the file's chunks, checked and decoded ({@link checkedText}); csv-parse's records,
 * a chunk's worth at a time ({@link parsedRecords}); and here, each record numbered, the header
 * matched ({@link matchHeader}) and the rest validated ({@link toRow}). Records come in file
 * order, so the header is checked, and the rows before a fault are read, before the fault is
 * reported. Lines are counted here rather than taken from csv-parse's `info` (which builds two objects per
 * record and costs more than the parse itself): a record starts on the line after the previous
 * one ends, and spans one line more for each line break inside its quoted fields; blank lines
 * are read as records (`skip_empty_lines` off) only to be counted and skipped. `SourceRow.bytes`
 * is the file stream's read position, a little ahead of the record (for the progress bar).
 * `onRow` is called with each validated row before it is yielded.
 *
 * A file still being written is not read as if it were whole: the bytes csv-parse reads are
 * hashed (SHA-256) as they pass, in the same pass, and once the file is read to its end its
 * version (`fstat` of the open file, and `stat` of its path: inode, size, mtime) must be the one
 * it was opened at, with every byte of it read; a refusal of a file that changed meanwhile (a
 * line its producer had half written) is the change. `unchanged` compares across the run's reads
 * (the version each opened) and with a `--file` run key (the hash).
 *
 * @throws SourceError naming the file and line (and the field and value where there is one)
 *   for every refusal above, and when the file cannot be read.
 * @throws SourceChangedError when the file changed while it was read (see above), after its
 *   last row was yielded: the caller must not take the rows as the whole file.
 * @throws UnreadableFileError when this process may not read the file (EACCES, EPERM).
 */
export async function* readCsvRows<Row>(
  file: string,
  spec: CsvReadSpec<Row>,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  onRow?: (row: SourceRow<unknown>) => void,
  unchanged?: UnchangedFileCalls,
): AsyncGenerator<SourceRow<Row>> {
  const options: CsvReadOptions = {
    encoding: spec.encoding ?? CSV_SOURCE_DEFAULTS.encoding,
    emptyFile: spec.emptyFile ?? CSV_SOURCE_DEFAULTS.emptyFile,
    lastLineBreak: spec.lastLineBreak ?? CSV_SOURCE_DEFAULTS.lastLineBreak,
    maxRecordBytes: spec.maxRecordBytes ?? CSV_SOURCE_DEFAULTS.maxRecordBytes,
    delimiter: spec.delimiter ?? CSV_SOURCE_DEFAULTS.delimiter,
  };
  const names = spec.header;
  const byName = (spec.headerMatch ?? CSV_SOURCE_DEFAULTS.headerMatch) === 'name';
  const reader: RowReader<Row> = {
    file,
    names,
    nullValues: new Set(spec.nullValues ?? CSV_SOURCE_DEFAULTS.nullValues),
    validate: createRowValidator(spec.row, names),
  };
  const handle = await openSourceFile(file);
  let opened: FileVersion;
  try {
    opened = fileVersionOf(await handle.stat({ bigint: true }));
    unchanged?.opened(file, opened);
  } catch (error) {
    await handle.close();
    throw error;
  }
  // The handle stays open past the end of the stream: the file's version is read from it there.
  const input = handle.createReadStream({ autoClose: false });
  const hash = createHash('sha256');
  const parser = parse({ bom: true, delimiter: options.delimiter, skip_empty_lines: false, relax_column_count: true, raw: true, max_record_size: options.maxRecordBytes });
  // A parse error is read from `parser.errored` (see parsedRecords). The stream also emits it, a
  // tick later, when the reader may already have stopped for an earlier reason (a header that
  // does not match): without a listener, that emit would crash the process.
  parser.on('error', () => undefined);
  // The line the next record starts on, and the header's layout once it is read.
  let nextLine = 1;
  let layout: HeaderLayout | undefined;
  try {
    await refuseCutFile(file, names, options);
    for await (const batch of parsedRecords(checkedText(input, options.encoding, hash), parser)) {
      for (const { record, raw } of batch) {
        const line = nextLine;
        // Only a quoted field can hold a line break; most records have none.
        nextLine += raw.includes('"') ? 1 + extraLines(record) : 1;
        if (isBlank(record, raw)) continue;
        if (layout === undefined) {
          layout = matchHeader(file, line, names, byName, record, raw, options.delimiter);
          continue;
        }
        const row = toRow(reader, layout, record, raw, line, input.bytesRead);
        if ('reason' in row) {
          await quarantine(row);
          continue;
        }
        onRow?.(row);
        yield row;
      }
    }
    await refuseChangedFile(file, handle, opened, input.bytesRead);
    if (layout === undefined && options.emptyFile === 'error') {
      throw new SourceError(
        file,
        undefined,
        `the file has no header line (${input.bytesRead === 0 ? '0 bytes' : 'only a BOM or blank lines'}): a writer that failed before its first line leaves such a file; if an empty file means no rows for this source, declare emptyFile: 'no-rows'`,
      );
    }
    unchanged?.readToEnd(file, hash.digest('hex'));
  } catch (error) {
    if (error instanceof SourceChangedError || error instanceof UnreadableFileError) throw error;
    // A fault in a file that changed meanwhile (a line its producer had half written) is the change.
    await refuseChangedFile(file, handle, opened);
    if (error instanceof SourceError) throw error;
    if (error instanceof ByteFaultFound) throw await byteFaultError(file, names, error.fault, options);
    if (isCsvError(error)) throw await parseError(file, names, error, nextLine, layout === undefined, options);
    throw new SourceError(file, undefined, (error as Error).message, error);
  } finally {
    parser.destroy();
    input.destroy();
    await handle.close();
  }
}

/**
 * Opens a source file for reading.
 * @throws UnreadableFileError when this process may not read it; else what `open` throws.
 */
async function openSourceFile(file: string): Promise<FileHandle> {
  try {
    return await open(file);
  } catch (error) {
    throw UnreadableFileError.of(file, error) ?? error;
  }
}

/**
 * Once a file was read to its end (or stopped at a fault): the open file (`fstat`) and its path
 * (`stat`) must still be the version it was opened at, and `bytesRead`, when given, its size. A
 * producer that appended while it was read, or renamed another file into its place, changed one
 * of them.
 * @throws SourceChangedError naming the change.
 */
async function refuseChangedFile(file: string, handle: FileHandle, opened: FileVersion, bytesRead?: number): Promise<void> {
  const change =
    fileVersionChange(opened, fileVersionOf(await handle.stat({ bigint: true }))) ??
    fileVersionChange(opened, await stat(file, { bigint: true }).then(fileVersionOf, () => undefined)) ??
    (bytesRead === undefined || BigInt(bytesRead) === opened.size ? undefined : `${bytesRead} bytes were read of the ${opened.size} it had when it was opened`);
  if (change !== undefined) throw new SourceChangedError(file, change);
}

/** What {@link toRow} needs of one read: the file, the header's names, null tokens and the row schema. */
interface RowReader<Row> {
  readonly file: string;
  readonly names: readonly string[];
  readonly nullValues: ReadonlySet<string>;
  readonly validate: ReturnType<typeof createRowValidator<Row>>;
}

/** Where the header's names are in the file's records: each name's field index, and how many fields a record has. */
interface HeaderLayout {
  readonly indexes: readonly number[];
  readonly width: number;
  /** The file's header differs from `header` (matched by name): a quarantined row's text is given in `header`'s order. */
  readonly reordered: boolean;
}

/**
 * The header's layout from the file's first record: `header` exactly, or (matched by name) every
 * name of `header` once, in any order.
 * @throws SourceError naming the line for a header that differs (by position), lacks a name or names one twice.
 */
function matchHeader(file: string, line: number, names: readonly string[], byName: boolean, record: readonly string[], raw: string, delimiter: string): HeaderLayout {
  if (record.length === names.length && record.every((name, i) => name === names[i])) return { indexes: names.map((_, i) => i), width: names.length, reordered: false };
  if (!byName) throw new SourceError(file, line, headerMismatch(names, recordText(raw), [], delimiter));
  const missing = names.filter((name) => !record.includes(name));
  if (missing.length > 0) throw new SourceError(file, line, headerMismatch(names, recordText(raw), missing, delimiter));
  const twice = names.find((name) => record.indexOf(name) !== record.lastIndexOf(name));
  if (twice !== undefined) throw new SourceError(file, line, `header names ${twice} more than once (got ${recordText(raw)}): which one to read is not clear`);
  return { indexes: names.map((name) => record.indexOf(name)), width: record.length, reordered: true };
}

/**
 * One record as a validated row, or as the quarantine's row when it is rejected: a record with
 * the wrong field count, or one the row schema rejects (naming the field, the rule and the
 * value). Synchronous: an async step per row would cost a promise per row.
 */
function toRow<Row>(reader: RowReader<Row>, layout: HeaderLayout, record: readonly string[], raw: string, line: number, bytes: number): SourceRow<Row> | QuarantinedRow {
  const { names, nullValues } = reader;
  if (record.length !== layout.width) return { source: reader.file, line, reason: `expected ${layout.width} fields, found ${record.length}`, raw: recordText(raw) };
  const fields: Record<string, string | null> = {};
  for (let i = 0; i < names.length; i++) {
    const text = record[layout.indexes[i]!]!;
    // Looked up only when there are null tokens: hashing every field's text costs.
    fields[names[i]!] = nullValues.size > 0 && nullValues.has(text) ? null : text;
  }
  const checked = reader.validate(fields);
  if (checked.ok) return { line, value: checked.row, bytes };
  const value = fields[checked.field];
  const text = layout.reordered ? csvLine(layout.indexes.map((i) => record[i]!)).slice(0, -1) : recordText(raw);
  return { source: reader.file, line, reason: `${checked.field}: ${checked.message} (got ${value === undefined || value === null ? 'null' : describeValue(value)})`, raw: text };
}

/** A byte fault {@link checkedText} found, after the text before it was handed on. */
class ByteFaultFound extends Error {
  constructor(readonly fault: CsvByteFault) {
    super(`byte fault at offset ${fault.offset}`);
  }
}

/**
 * Stage one: the file's chunks as text, each added to `hash` and checked by {@link CsvByteCheck}
 * before it is handed on. At a fault, the text before it is handed on, then
 * {@link ByteFaultFound} is thrown.
 */
async function* checkedText(input: AsyncIterable<Buffer>, encoding: CsvReadOptions['encoding'], hash: Hash): AsyncGenerator<Buffer> {
  const bytes = new CsvByteCheck(encoding);
  for await (const chunk of input) {
    hash.update(chunk);
    const checked = bytes.next(chunk);
    yield checked.text;
    if (checked.fault) throw new ByteFaultFound(checked.fault);
  }
  const fault = bytes.end();
  if (fault) throw new ByteFaultFound(fault);
}

/** A record as csv-parse gives it with `raw: true`: its fields and its text. */
interface ParsedRecord {
  readonly record: string[];
  readonly raw: string;
}

/**
 * Stage two: csv-parse's records of the text, in batches of what one chunk completes (csv-parse
 * parses a written chunk at once, so its records are taken with `read()` without waiting; a
 * promise per chunk, not per record). The parser is ended only once all the text is read, so a
 * record a fault cuts short is never handed on.
 * @throws the parser's error (a `CsvError`) where it stops.
 */
async function* parsedRecords(texts: AsyncIterable<Buffer>, parser: Parser): AsyncGenerator<readonly ParsedRecord[]> {
  const drain = (): ParsedRecord[] => {
    const batch: ParsedRecord[] = [];
    for (let item = parser.read() as ParsedRecord | null; item !== null; item = parser.read() as ParsedRecord | null) batch.push(item);
    return batch;
  };
  for await (const text of texts) {
    parser.write(text);
    // The records before an error are handed on first: the header is checked, and lines are
    // counted, up to the record the parser stopped in.
    yield drain();
    if (parser.errored) throw parser.errored;
  }
  parser.end();
  // What the parser holds back until it is ended (the last record, when the file does not end
  // with a line break) comes once it has flushed.
  const tail: ParsedRecord[] = [];
  for await (const item of parser) tail.push(item as ParsedRecord);
  yield tail;
}

function isCsvError(error: unknown): error is CsvError {
  return error instanceof Error && typeof (error as CsvError).code === 'string' && (error as CsvError).code.startsWith('CSV_');
}

/** The refusal for a byte fault: its line, field, byte offset and value. */
async function byteFaultError(file: string, names: readonly string[], found: CsvByteFault, options: CsvReadOptions): Promise<SourceError> {
  const { line, field } = await locateCsvOffset(file, found.offset, options);
  const hex = [...found.bytes].map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
  const rule =
    found.kind === 'nul'
      ? `a NUL byte (0x00) at byte offset ${found.offset}: a text source must not hold one`
      : `bytes that are not UTF-8 (${hex}) at byte offset ${found.offset}: the file is not UTF-8`;
  const got = field ? ` (got ${describeValue(field.value)})` : '';
  const advice = found.kind === 'invalid-utf-8' ? "; if the source writes windows-1252 or latin1, declare encoding: 'windows-1252'" : '';
  return new SourceError(file, line, `${field ? `${fieldName(names, field.index)}: ` : ''}${rule}${got}${advice}`);
}

/** The refusal for csv-parse's error, at `line`, where the record it was reading starts. */
async function parseError(file: string, names: readonly string[], error: CsvError, line: number, beforeHeader: boolean, options: CsvReadOptions): Promise<SourceError> {
  if (error.code === 'CSV_MAX_RECORD_SIZE') {
    const field = fieldName(names, Number(error.column));
    const got = typeof error.raw === 'string' ? ` (got ${describeValue(recordText(error.raw))})` : '';
    return new SourceError(file, line, `${field}: a record longer than ${options.maxRecordBytes} bytes, the source's maxRecordBytes${got}`);
  }
  // A first line csv-parse cannot read is no header: say what was expected.
  const first = beforeHeader ? await firstLine(file, options.encoding) : undefined;
  if (first !== undefined && first !== names.join(options.delimiter)) return new SourceError(file, line, headerMismatch(names, first, [], options.delimiter), error);
  return new SourceError(file, line, error.message, error);
}
