import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { columnSource } from '../../scaffold/column-source.ts';
import { scaffoldPipeline } from '../../scaffold/scaffold-pipeline.ts';

/** Flags of `idem new`. */
export interface NewCommandOptions {
  readonly csv?: string;
  readonly json?: string;
  readonly key?: string;
  readonly timeZone?: string;
  readonly nullValues?: string;
  readonly rows?: number;
}

/** `idem new NAME --csv FILE | --json URL_OR_FILE`: writes a pipeline from a sample and says what it inferred and what to run next. */
export async function newCommand(name: string, options: NewCommandOptions): Promise<Outcome> {
  const { projectDir } = loadConfig();
  const result = await scaffoldPipeline({
    projectDir,
    name,
    ...(options.csv !== undefined ? { csv: options.csv } : {}),
    ...(options.json !== undefined ? { json: options.json } : {}),
    ...(options.key !== undefined ? { key: options.key } : {}),
    ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
    ...(options.nullValues !== undefined ? { nullValues: options.nullValues.split(',') } : {}),
    ...(options.rows !== undefined ? { fixtureRows: options.rows } : {}),
  });
  const { plan } = result;
  // The loop of docs/writing-a-pipeline.md: run (twice: the second is a no-op), check, test, prove.
  const source = plan.source.kind === 'csv' ? '' : `IDEM_SOURCES='{"${name}":{"url":"${plan.source.baseUrl ?? 'https://…'}"}}' `;
  const input = plan.source.kind === 'csv' ? `--file ${options.csv}` : '--date today';
  const out: string[] = [
    `key: ${plan.key}${result.keyProposed ? ' (proposed: present and unique in every sample row; choose another with --key)' : ''}`,
    'columns:',
    ...plan.columns.map(([column, spec]) => `  ${column}: ${columnSource(spec)}${plan.fields[column] ? ` (from ${plan.fields[column]})` : ''}`),
    'wrote:',
    ...result.files.map((file) => `  ${file}`),
    'next:',
    '  idem migrate',
    `  ${source}idem run ${name} ${input}`,
    `  idem check ${name}`,
    `  npx vitest run test/pipelines/${name}.test.ts`,
    `  ${source}idem prove ${name} ${input}`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return 'completed';
}
