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
  /** The delimiter the sample is written with (see {@link SAMPLE_DELIMITERS}). */
  readonly delimiter: string;
}

/** The delimiters `idem new` tries, in order: the first that splits the header into more than one field and gives every record as many is the sample's. */
export const SAMPLE_DELIMITERS: readonly string[] = [',', ';', '\t', '|'];

type ParsedRecords = { record: string[]; raw: string }[];

/**
 * Reads up to {@link MAX_SAMPLE_ROWS} records of a UTF-8 CSV sample with csv-parse (header first,
 * a BOM dropped, blank lines skipped), reading fields equal to one of `nullValues` as `null`. The
 * delimiter is the first of {@link SAMPLE_DELIMITERS} with which csv-parse reads the header as
 * more than one field and every record with as many (as Python's `csv.Sniffer` guesses one);
 * else the comma.
 * @throws UsageError naming the file when it is not UTF-8, cannot be parsed with any delimiter,
 *   or has no header.
 */
export function readCsvSample(file: string, nullValues: readonly string[]): CsvSample {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
  } catch (error) {
    throw new UsageError(`${file}: the sample is not UTF-8 text: ${(error as Error).message}`, { cause: error });
  }
  const parseWith = (delimiter: string): ParsedRecords => parse(text, { bom: true, delimiter, raw: true, skip_empty_lines: true, to: MAX_SAMPLE_ROWS + 1 }) as unknown as ParsedRecords;
  let delimiter = SAMPLE_DELIMITERS[0]!;
  let records: ParsedRecords | undefined;
  for (const candidate of SAMPLE_DELIMITERS) {
    try {
      const parsed = parseWith(candidate);
      if ((parsed[0]?.record.length ?? 0) > 1) {
        [delimiter, records] = [candidate, parsed];
        break;
      }
    } catch {
      // Not this delimiter: csv-parse found records of another length than the header, or a quote mid-field.
    }
  }
  try {
    records ??= parseWith(delimiter);
  } catch (error) {
    throw new UsageError(`${file}: cannot read the sample as CSV with any of the delimiters ${SAMPLE_DELIMITERS.map((d) => JSON.stringify(d)).join(', ')}: ${(error as Error).message}`, { cause: error });
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
    delimiter,
  };
}
