import { loadConfig } from '../../config/load-config.ts';
import { UsageError } from '../../errors/usage-error.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { columnSource } from '../../scaffold/column-source.ts';
import { scaffoldPipeline } from '../../scaffold/scaffold-pipeline.ts';

/** Flags of `idem new`. */
export interface NewCommandOptions {
  readonly csv?: string;
  readonly json?: string;
  readonly sql?: string;
  readonly source?: string;
  readonly key?: string;
  readonly timeZone?: string;
  readonly nullValues?: string;
  readonly rows?: number;
}

/** `idem new NAME --csv FILE | --json URL_OR_FILE | --sql "SELECT …" --source NAME`: writes a pipeline from a sample and says what it inferred and what to run next. */
export async function newCommand(name: string, options: NewCommandOptions): Promise<Outcome> {
  const { projectDir, sources } = loadConfig();
  if ((options.sql === undefined) !== (options.source === undefined)) throw new UsageError('--sql and --source go together: --sql "SELECT …" --source NAME (an IDEM_SOURCES database)');
  const sourceUrl = options.source === undefined ? undefined : sources[options.source]?.url;
  if (options.source !== undefined && (sourceUrl === undefined || /^https?:/i.test(sourceUrl))) {
    throw new UsageError(`--source ${options.source} names no database: set IDEM_SOURCES='{"${options.source}":{"url":"postgres://…"}}' (or sqlite:, mysql://, mariadb://, mssql://)`);
  }
  const result = await scaffoldPipeline({
    projectDir,
    name,
    ...(options.csv !== undefined ? { csv: options.csv } : {}),
    ...(options.json !== undefined ? { json: options.json } : {}),
    ...(options.sql !== undefined ? { sql: { query: options.sql, database: options.source!, url: sourceUrl! } } : {}),
    ...(options.key !== undefined ? { key: options.key } : {}),
    ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
    ...(options.nullValues !== undefined ? { nullValues: options.nullValues.split(',') } : {}),
    ...(options.rows !== undefined ? { fixtureRows: options.rows } : {}),
  });
  const { plan } = result;
  // The loop of docs/writing-a-pipeline.md: run (twice: the second is a no-op), check, test, prove.
  const source =
    plan.source.kind === 'csv' ? '' : plan.source.kind === 'sql' ? '' : `IDEM_SOURCES='{"${name}":{"url":"${plan.source.baseUrl ?? 'https://…'}"}}' `;
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
    ...(plan.source.kind === 'sql'
      ? [`  (write stand-ins/${name}.ts: sourceDatabase(db, range), the tables the query reads, for idem prove)`]
      : [`  npx vitest run test/pipelines/${name}.test.ts`]),
    `  ${source}idem prove ${name} ${input}`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return 'completed';
}
