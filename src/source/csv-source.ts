import type { ZodType } from 'zod';

/**
 * A CSV file source (RFC 4180, as csv-parse reads it): a UTF-8 BOM is dropped, CRLF and LF both
 * end a record, quoted fields may hold commas, doubled quotes and newlines, and blank lines are
 * skipped. The first record is the header.
 */
export interface CsvSource<Row> {
  readonly kind: 'csv';
  /**
   * Directory that holds the dated files, relative to the project directory. `IDEM_SOURCE_DIR`
   * overrides it.
   */
  readonly directory: string;
  /** The file name for a business date (`YYYY-MM-DD`), for example `d => \`${d}.csv\``. */
  readonly fileForDate: (businessDate: string) => string;
  /** The exact header, in order. A file whose header differs fails the run. */
  readonly header: readonly string[];
  /**
   * Validates and converts one record, given as `{ [header]: field }`. A record it rejects goes
   * to the quarantine with the file, line, field and rule (the zod issue).
   */
  readonly row: ZodType<Row>;
  /**
   * What a quarantined row does to the run: `quarantine` loads the rest of the file; `fail`
   * reads the whole file (so every bad row is quarantined at once) and then fails the run
   * before anything is upserted. @defaultValue 'fail'
   */
  readonly invalidRows: 'quarantine' | 'fail';
  /** A `--date` run whose file does not exist: `error` fails the run, `skip` completes it empty. @defaultValue 'error' */
  readonly missing: 'error' | 'skip';
}

/** Builds a {@link CsvSource} with its defaults. */
export function csvSource<Row>(
  spec: Omit<CsvSource<Row>, 'kind' | 'invalidRows' | 'missing'> & Partial<Pick<CsvSource<Row>, 'invalidRows' | 'missing'>>,
): CsvSource<Row> {
  return Object.freeze({ kind: 'csv' as const, invalidRows: 'fail' as const, missing: 'error' as const, ...spec });
}
