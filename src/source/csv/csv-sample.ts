import path from 'node:path';
import { singleQuoted as q } from '../../text/single-quoted.ts';
import type { SampleOptions, SourceSample } from '../source-sample.ts';
import { PLAIN_NUMBERS, plainNumberText } from '../number-format.ts';
import { inferNumberFormat } from './infer-number-format.ts';
import { readCsvSample } from './read-csv-sample.ts';

/**
 * `idem new --csv FILE`: the sample (see `readCsvSample`, with its numbers in plain form when it
 * writes a decimal comma: `inferNumberFormat`), and a `csvSource` of its null values, delimiter and number format
 * (with `lastLineBreak: 'optional'` when the sample's last record has no line break), a fixture of
 * its header and first records as in the file, and a test that runs it with `--file`.
 */
export function sampleCsv(file: string, options: SampleOptions): SourceSample {
  const sample = readCsvSample(file, options.nullValues);
  const format = inferNumberFormat(sample.rows.flatMap((row) => Object.values(row)));
  // The columns are inferred from the numbers as the pipeline's row schema will read them.
  const plain = plainNumberText(format);
  const asPlain = (value: string | null): string | null => {
    if (value === null) return null;
    try {
      return plain(value);
    } catch {
      return value;
    }
  };
  const rows = format === PLAIN_NUMBERS ? sample.rows : sample.rows.map((row) => Object.fromEntries(Object.entries(row).map(([field, value]) => [field, asPlain(value)])));
  const dialect = [
    ...(sample.delimiter === ',' ? [] : [`delimiter: ${JSON.stringify(sample.delimiter)}`]),
    ...(format.decimalSeparator === '.' ? [] : [`decimalSeparator: ${q(format.decimalSeparator)}`]),
    ...(format.groupSeparator === undefined ? [] : [`groupSeparator: ${q(format.groupSeparator)}`]),
  ];
  return {
    name: path.basename(file),
    fields: sample.header,
    rows,
    render(plan) {
      const kept = sample.recordTexts.slice(0, plan.fixtureRows);
      const fixture = `fixtures/${plan.name}/sample.csv`;
      return {
        builder: 'csvSource',
        declaration: `csvSource({ nullValues: [${options.nullValues.map(q).join(', ')}]${dialect.map((option) => `, ${option}`).join('')}${sample.endsWithLineBreak ? '' : `, lastLineBreak: 'optional'`} })`,
        notes: [],
        fixture: { path: fixture, text: `${[sample.headerText, ...kept].join('\n')}\n`, records: kept.length },
        test: { imports: [], setup: [], kitOptions: [], runArgs: `['--file', ${JSON.stringify(fixture)}]` },
        next: { env: '', runFlags: `--file ${file}` },
      };
    },
  };
}
