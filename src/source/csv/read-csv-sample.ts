import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { UsageError } from '../../errors/usage-error.ts';

/** The most records of a sample `idem new` reads to infer columns. */
export const MAX_SAMPLE_ROWS = 100_000;

/** A CSV sample as `idem new` reads it. */
export interface CsvSample {
  readonly header: readonly string[];
  /** One object per record, `{ [header]: field }`, a null token as `null`. */
  readonly rows: readonly Readonly<Record<string, string | null>>[];
  /** The header line and each record's own text, as in the file (for the fixture). */
  readonly headerText: string;
  readonly recordTexts: readonly string[];
  /** Whether the file's last byte is a line break (else the pipeline declares `lastLineBreak: 'optional'`). */
  readonly endsWithLineBreak: boolean;
}

/**
 * Reads up to {@link MAX_SAMPLE_ROWS} records of a UTF-8 CSV sample with csv-parse (header first,
 * a BOM dropped, blank lines skipped), reading fields equal to one of `nullValues` as `null`.
 * @throws UsageError naming the file when it cannot be read or parsed, has no header, or a record
 *   whose field count differs from the header's.
 */
export function readCsvSample(file: string, nullValues: readonly string[]): CsvSample {
  let text: string;
  let records: { record: string[]; raw: string }[];
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
    records = parse(text, { bom: true, raw: true, skip_empty_lines: true, to: MAX_SAMPLE_ROWS + 1 }) as unknown as { record: string[]; raw: string }[];
  } catch (error) {
    throw new UsageError(`${file}: cannot read the sample as UTF-8 CSV: ${(error as Error).message}`, { cause: error });
  }
  if (records.length === 0) throw new UsageError(`${file}: the sample has no header line`);
  const header = records[0]!.record;
  const nulls = new Set(nullValues);
  const rows = records.slice(1).map(({ record }) => Object.fromEntries(header.map((name, i) => [name, nulls.has(record[i]!) ? null : record[i]!])));
  const own = (raw: string): string => raw.replace(/^\uFEFF/, '').replace(/^[\r\n]+|[\r\n]+$/g, '');
  return {
    header,
    rows,
    headerText: own(records[0]!.raw),
    recordTexts: records.slice(1).map(({ raw }) => own(raw)),
    endsWithLineBreak: /[\r\n]$/.test(text),
  };
}
