import { UsageError } from '../../errors/usage-error.ts';
import { singleQuoted as q } from '../../text/single-quoted.ts';
import type { NewPipelinePlan, SampleOptions, SourceSample } from '../source-sample.ts';
import { sampleSqlQuery } from './sample-sql-query.ts';

/** The most rows of a query `idem new --sql` reads to infer columns. */
const SQL_SAMPLE_ROWS = 1_000;

/** The declaration `idem new` writes: the query wrapped as a derived table, the business date's range on the first instant column, ordered by the key. */
function declaration(database: string, sql: string, plan: NewPipelinePlan): string {
  const instant = plan.columns.find(([, spec]) => spec.type === 'instant')?.[0];
  const rangeColumn = instant === undefined ? undefined : (plan.fields[instant] ?? instant);
  const order = plan.key.length === 1 ? q(plan.key[0]!) : `[${plan.key.map(q).join(', ')}]`;
  return [
    'sqlSource({',
    `    database: ${q(database)},`,
    rangeColumn === undefined
      ? '    // No instant column in the sample: filter the rows of the business date with start and end yourself.'
      : `    // The business date's instants [start, end) in ${plan.timeZone}, bound by knex, on ${rangeColumn}.`,
    `    query: (db${rangeColumn === undefined ? '' : ', { start, end }'}) =>`,
    `      db.select('*').from(db.raw(${q(`(${sql}) as source`)}))${rangeColumn === undefined ? '' : `.where(${q(rangeColumn)}, '>=', start).andWhere(${q(rangeColumn)}, '<', end)`}.orderBy(${order}),`,
    '  })',
  ].join('\n');
}

/**
 * `idem new NAME --sql "SELECT …" --source DB`: the query's first rows on the `IDEM_SOURCES`
 * database DB (see `sampleSqlQuery`), and a `sqlSource` that reads them by the business date. No
 * fixture and no test: a SQL source's test and proof read a stand-in database
 * (`stand-ins/<pipeline>.ts`), which must know the query's tables.
 * @throws UsageError without `--source`, for a source that names no database, or a query the database refuses.
 */
export async function sampleSql(query: string, options: SampleOptions): Promise<SourceSample> {
  const database = options.sourceName;
  if (database === undefined) throw new UsageError('--sql and --source go together: --sql "SELECT …" --source NAME (an IDEM_SOURCES database)');
  const url = options.sources[database]?.url;
  if (url === undefined || /^https?:/i.test(url)) {
    throw new UsageError(`--source ${database} names no database: set IDEM_SOURCES='{"${database}":{"url":"postgres://…"}}' (or sqlite:, mysql://, mariadb://, mssql://)`);
  }
  const sql = query.trim().replace(/;+$/, '');
  const sample = await sampleSqlQuery(url, options.projectDir, database, sql, SQL_SAMPLE_ROWS);
  return {
    name: `--sql on ${database}`,
    fields: sample.fields,
    rows: sample.rows,
    form: 'json',
    render: (plan) => ({
      builder: 'sqlSource',
      declaration: declaration(database, sql, plan),
      notes: [
        `The database is deployment configuration: IDEM_SOURCES='{"${database}":{"url":"…"}}'; idem prove reads`,
        `stand-ins/${plan.name}.ts's sourceDatabase(db, range) instead (docs/writing-a-pipeline.md, "Databases").`,
      ],
      next: { env: '', runFlags: '--date today', instead: `(write stand-ins/${plan.name}.ts: sourceDatabase(db, range), the tables the query reads, for idem prove)` },
    }),
  };
}
