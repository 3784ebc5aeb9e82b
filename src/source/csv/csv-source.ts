import { ZodObject, type ZodType } from 'zod';
import type { NumberFormat } from '../number-format.ts';
import type { SourceDeclaration } from '../source-kind.ts';

/** The character encodings a {@link CsvSource} reads. `latin1` is read as `windows-1252`. */
export type CsvEncoding = 'utf-8' | 'windows-1252' | 'latin1';

/**
 * A CSV file source (RFC 4180, as csv-parse reads it, with another `delimiter` where declared): a UTF-8 BOM is dropped, CRLF and LF both
 * end a record, quoted fields may hold commas, doubled quotes and newlines, and blank lines are
 * skipped. The first record is the header. A file that is not what it claims to be fails the
 * run before any of it is upserted, naming the file, line, field, rule and value: bytes that are
 * not in its `encoding`, a NUL byte, a record over `maxRecordBytes`, a last line without a line
 * break, no header at all, or a header that lacks a declared field (or, matched by position,
 * differs).
 *
 * The shortest CSV source declares none of `header`, `row`, `directory` or `fileForDate`: a
 * pipeline with a `key` derives the row schema from its columns (see `definePipeline`), the
 * header from the row schema, and a `--file`-only pipeline needs no dated files.
 */
export interface CsvSource<Row> extends SourceDeclaration<Row> {
  readonly kind: 'csv';
  /**
   * Directory that holds the dated files, relative to the project directory. `IDEM_SOURCE_DIR`
   * overrides it.
   */
  readonly directory?: string;
  /**
   * The file name for a business date (`YYYY-MM-DD`), for example `d => \`${d}.csv\``. Without
   * it (and `directory`) the pipeline runs only with `--file`; `--date` is refused.
   */
  readonly fileForDate?: (businessDate: string) => string;
  /**
   * The fields the file's header must name. @defaultValue the keys of `row` when it is a
   * `z.object`, in order (`definePipeline` derives both from the columns when neither is given)
   */
  readonly header?: readonly string[];
  /**
   * How the header is matched. `name`: every name of `header` must occur once in the file's
   * header, in any order; other fields of the file are not read (a real export has its own
   * order and columns nobody loads). `position`: the file's header must be `header`, exactly and
   * in order, and each record must have that many fields. @defaultValue 'name'
   */
  readonly headerMatch: 'name' | 'position';
  /**
   * Field values read as NULL (before `row` sees them), for example `['', 'NA', 'NULL']`;
   * compared exactly (case and spaces count). @defaultValue [] (every field is its text)
   */
  readonly nullValues: readonly string[];
  /**
   * Validates and converts one record, given as `{ [header]: field }` (a null token as
   * `null`). A record it rejects goes to the quarantine with the file, line, field and rule
   * (the zod issue). A `z.object` over `header`'s names with no rule on the object itself runs
   * each field's schema once per distinct value (`createRowValidator`): a field's rules must
   * depend on its value alone. @defaultValue derived from the pipeline's `columns` and `key` by
   * `definePipeline`
   */
  readonly row?: ZodType<Row>;
  /**
   * What a quarantined row does to the run: `quarantine` loads the rest of the file; `fail`
   * reads the whole file (so every bad row is quarantined at once) and then fails the run
   * before anything is upserted. @defaultValue 'fail'
   */
  readonly invalidRows: 'quarantine' | 'fail';
  /** A `--date` run whose file does not exist: `error` fails the run, `skip` completes it empty. @defaultValue 'error' */
  readonly missing: 'error' | 'skip';
  /**
   * The file's character encoding. `utf-8`: a byte sequence that is not UTF-8 fails the run,
   * naming its line, byte offset and field (nothing is replaced by U+FFFD). `windows-1252`, and
   * `latin1` read as `windows-1252` (as the WHATWG Encoding Standard and browsers read it), by
   * Node's `TextDecoder`: every byte is a character. @defaultValue 'utf-8'
   */
  readonly encoding: CsvEncoding;
  /**
   * A file with no header line (0 bytes, or only a BOM or blank lines): `error` fails the run (a
   * writer that died before its first line looks the same); `no-rows` reads it as a file with no
   * rows, like a header-only file. @defaultValue 'error'
   */
  readonly emptyFile: 'error' | 'no-rows';
  /**
   * `required`: a file whose last line does not end with a line break is taken for a cut
   * transfer and fails the run, naming the last line, before any of it is read. `optional`: for
   * sources that never end their last line with one. @defaultValue 'required'
   */
  readonly lastLineBreak: 'required' | 'optional';
  /**
   * The one character between fields: `','`, or what the export uses, such as `';'` (usual where
   * a comma is the decimal separator), `'\t'` or `'|'`; never a double quote or a line break.
   * The header is split at it too. @defaultValue ','
   */
  readonly delimiter: string;
  /**
   * The character between a number's whole and decimal parts in the file, for the row schema
   * `definePipeline` derives from the columns: `','` reads `1234,50`. @defaultValue '.'
   */
  readonly decimalSeparator: NumberFormat['decimalSeparator'];
  /**
   * The character the file writes between groups of three digits (`'.'` in `1.234,50`, `' '` in
   * `1 234,50`), for the derived row schema; a number written with it elsewhere is quarantined.
   * @defaultValue none
   */
  readonly groupSeparator?: NumberFormat['groupSeparator'];
  /**
   * The largest record, in bytes of its fields' text (quotes and delimiters not counted). A
   * longer record fails the run, naming its line and field, before it is held in memory whole.
   * @defaultValue 1048576 (1 MiB)
   */
  readonly maxRecordBytes: number;
}

/** The options {@link csvSource} fills in when a pipeline leaves them out. */
export const CSV_SOURCE_DEFAULTS = Object.freeze({
  invalidRows: 'fail',
  missing: 'error',
  encoding: 'utf-8',
  emptyFile: 'error',
  lastLineBreak: 'required',
  maxRecordBytes: 1024 * 1024,
  headerMatch: 'name',
  nullValues: [] as readonly string[],
  delimiter: ',',
  decimalSeparator: '.',
} as const satisfies Partial<CsvSource<unknown>>);

/** The {@link CsvSource} options that have a default. */
type CsvSourceDefaulted = keyof typeof CSV_SOURCE_DEFAULTS;

/**
 * Builds a {@link CsvSource} with its defaults; a `header` left out is the keys of a `z.object`
 * `row`, in order.
 * @throws TypeError for a `directory` without `fileForDate` or the other way round.
 */
export function csvSource<Row = Record<string, unknown>>(
  spec: Omit<CsvSource<Row>, 'kind' | CsvSourceDefaulted> & Partial<Pick<CsvSource<Row>, CsvSourceDefaulted>> = {},
): CsvSource<Row> {
  if ((spec.directory === undefined) !== (spec.fileForDate === undefined)) {
    throw new TypeError('csvSource: directory and fileForDate go together (dated files), or neither is given (a --file-only pipeline)');
  }
  const header = spec.header ?? (spec.row instanceof ZodObject ? Object.keys(spec.row.shape) : undefined);
  return Object.freeze({ kind: 'csv' as const, ...CSV_SOURCE_DEFAULTS, ...spec, ...(header ? { header } : {}) });
}
