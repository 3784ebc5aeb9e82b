import path from 'node:path';
import { singleQuoted as q } from '../../text/single-quoted.ts';
import type { SampleOptions, SourceSample } from '../source-sample.ts';
import { readCsvSample } from './read-csv-sample.ts';

/**
 * `idem new --csv FILE`: the sample (see `readCsvSample`), and a `csvSource` of its null values
 * (with `lastLineBreak: 'optional'` when the sample's last record has no line break), a fixture of
 * its header and first records as in the file, and a test that runs it with `--file`.
 */
export function sampleCsv(file: string, options: SampleOptions): SourceSample {
  const sample = readCsvSample(file, options.nullValues);
  return {
    name: path.basename(file),
    fields: sample.header,
    rows: sample.rows,
    render(plan) {
      const kept = sample.recordTexts.slice(0, plan.fixtureRows);
      const fixture = `fixtures/${plan.name}/sample.csv`;
      return {
        builder: 'csvSource',
        declaration: `csvSource({ nullValues: [${options.nullValues.map(q).join(', ')}]${sample.endsWithLineBreak ? '' : `, lastLineBreak: 'optional'`} })`,
        notes: [],
        fixture: { path: fixture, text: `${[sample.headerText, ...kept].join('\n')}\n`, records: kept.length },
        test: { imports: [], setup: [], kitOptions: [], runArgs: `['--file', ${JSON.stringify(fixture)}]` },
        next: { env: '', runFlags: `--file ${file}` },
      };
    },
  };
}
