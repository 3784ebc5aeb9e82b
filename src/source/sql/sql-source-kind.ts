import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { z } from 'zod';
import { redactUrl } from '../../config/redact-url.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { countOption, functionOption, invalidRowsOption, nameOption, rowSchemaOption } from '../source-option-schemas.ts';
import type { SourceContext, SourceKind } from '../source-kind.ts';
import { buildSourceQuery } from './build-source-query.ts';
import { businessDateInstants } from './sql-run-range.ts';
import type { SqlSource } from './sql-source.ts';

/** Every option of a {@link SqlSource}, as `definePipeline` checks it. */
const SqlSourceOptions = z.strictObject({
  kind: z.literal('sql'),
  database: nameOption,
  query: functionOption('a function (db, range) returning a knex query builder'),
  row: rowSchemaOption,
  invalidRows: invalidRowsOption,
  expectColumns: z.array(nameOption).optional(),
  fetchRows: countOption,
  connectRetries: z.number().int({ message: 'must be an integer' }).min(0, { message: 'must be an integer ≥ 0' }),
});

/**
 * A knex that builds SQL and never connects, for the check at import: the query's shape does not
 * depend on the dialect. Loaded on first use (pipelines of other kinds never load it).
 */
let offlineKnex: Knex | undefined;
function builderOnly(): Knex {
  offlineKnex ??= (createRequire(import.meta.url)('knex') as (config: Knex.Config) => Knex)({ client: 'pg' });
  return offlineKnex;
}

/** The source database's URL, or the setting a deployment must add. */
function databaseUrlOf(source: SqlSource<unknown>, { config }: SourceContext): string | undefined {
  const url = config.sources[source.database]?.url;
  return url === undefined || /^https?:/.test(url) ? undefined : url;
}

const missingUrl = (source: SqlSource<unknown>): string =>
  `the SQL source has no database URL: set IDEM_SOURCES='{"${source.database}":{"url":"postgres://user:password@host:5432/${source.database}"}}' (or sqlite:, mysql://, mariadb://, mssql://)`;

/**
 * The SQL source kind (`sqlSource`): a select on another database, read for a business date in
 * one snapshot, streamed. Its location names the database (password redacted) and the run's
 * range; `read` builds the query again against the live database's dialect.
 */
export const SQL_SOURCE_KIND: SourceKind<SqlSource<unknown>> = {
  name: 'sql',
  fieldForm: 'sql',
  // One read per run, in one snapshot: a second pass would be a second snapshot.
  rereadable: false,
  observesRows: true,
  options: SqlSourceOptions,
  problems(source) {
    const { startsAt, endsAt } = businessDateInstants('2026-01-01', 'UTC');
    try {
      buildSourceQuery(source, builderOnly(), { businessDate: '2026-01-01', start: startsAt, end: endsAt, startsAt, endsAt });
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  },
  withDerivedRow: (source, { row, fields }) => Object.freeze({ ...source, row, expectColumns: source.expectColumns ?? fields }),
  locate(source, runKey, context) {
    if (runKey.kind === 'file') throw new UsageError(`pipeline "${context.pipelineName}" reads a database, not a file: run it with --date YYYY-MM-DD`);
    const url = databaseUrlOf(source, context);
    if (url === undefined) throw new UsageError(`pipeline "${context.pipelineName}": ${missingUrl(source)}`);
    const { startsAt, endsAt } = businessDateInstants(runKey.businessDate, context.timeZone);
    return `${source.database} (${redactUrl(url)}) [${startsAt}, ${endsAt})`;
  },
  // A proof never reads the real database: a SQLite stand-in the project fills (loaded on use).
  standIn: async (source, runKey, context) => (await import('./sql-stand-in.ts')).createSqlStandIn(source, runKey, context),
  scaffold: {
    flag: { name: 'sql', argument: 'select', description: "a select on a SQL source's database, whose first rows are the sample (with --source)" },
    sample: async (query, options) => (await import('./sql-sample.ts')).sampleSql(query, options),
  },
  checkLocation: (source, context) => (databaseUrlOf(source, context) === undefined ? [missingUrl(source)] : []),
  async read(source, location, quarantine, options) {
    const { context, runKey } = options;
    if (context === undefined || runKey?.kind !== 'date') throw new TypeError('a SQL source is read for a business date, with the run\'s context');
    const url = databaseUrlOf(source, context);
    if (url === undefined) throw new UsageError(missingUrl(source));
    if (source.row === undefined) throw new UsageError(`${location}: the SQL source declares no row schema: give sqlSource a row, or the pipeline a key (definePipeline derives the row from its columns)`);
    const { readSqlRows } = await import('./read-sql-rows.ts');
    return readSqlRows({ ...source, row: source.row }, { url, location, projectDir: context.config.projectDir, ...businessDateInstants(runKey.businessDate, context.timeZone), businessDate: runKey.businessDate }, quarantine, options.onRow);
  },
};
