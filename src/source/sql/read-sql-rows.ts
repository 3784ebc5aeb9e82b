import pRetry from 'p-retry';
import type { ZodType } from 'zod';
import { assertDatabaseReachable } from '../../db/assert-database-reachable.ts';
import { openDatabase } from '../../db/open-database.ts';
import { DatabaseUnavailableError } from '../../errors/database-unavailable-error.ts';
import { PipelineError } from '../../errors/pipeline-error.ts';
import { SourceError } from '../../errors/source-error.ts';
import { SourceUnavailableError } from '../../errors/source-unavailable-error.ts';
import { UsageError } from '../../errors/usage-error.ts';
import type { QuarantinedRow } from '../quarantined-row.ts';
import type { SourceRow } from '../source-row.ts';
import { buildSourceQuery } from './build-source-query.ts';
import type { SqlSource } from './sql-source.ts';

/** Where and for what a SQL source is read. */
export interface SqlReadTarget {
  /** The database URL (`IDEM_SOURCES`), never printed unredacted. */
  readonly url: string;
  /** What messages name: the database's name, its redacted URL, the range (`SourceKind.locate`). */
  readonly location: string;
  /** Where a `sqlite:` path is relative to. */
  readonly projectDir: string;
  readonly businessDate: string;
  /** The range's bounds, ISO 8601 in UTC with ms. */
  readonly startsAt: string;
  readonly endsAt: string;
}

/** The first wait before connecting again, in ms; it doubles with each attempt. */
const FIRST_CONNECT_RETRY_MS = 500;

/**
 * A driver's value as a JSON-like field: an instant (`Date`) as ISO 8601 text in UTC with ms, a
 * bigint as its decimal text; everything else as the driver gave it (text, numbers, null,
 * decimals as text where the driver gives text).
 */
function fieldValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * Streams a SQL source's validated rows: connects (retrying while the database is unreachable),
 * builds the query for the run's range against the live dialect, and reads it through the
 * adapter's snapshot read (`DialectAdapter.streamSnapshotRows`), one row at a time. The source's
 * database is closed when the read ends, however it ends.
 * @throws SourceUnavailableError (exit 75) when the database stays unreachable through the
 *   retries, or is lost before the first row; UsageError (exit 2) when it refuses the login or
 *   the query as written, or the query does not build; PipelineError (exit 2) when the result
 *   lacks a column the pipeline reads; SourceError (exit 1) when the read fails after it began.
 */
export async function* readSqlRows<Row>(
  source: SqlSource<Row> & { readonly row: ZodType<Row> },
  target: SqlReadTarget,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  onRow?: (row: SourceRow<unknown>) => void,
): AsyncGenerator<SourceRow<Row>> {
  const { location } = target;
  const setting = `IDEM_SOURCES "${source.database}"`;
  const db = await openDatabase({ databaseUrl: target.url, projectDir: target.projectDir });
  try {
    const attempts = source.connectRetries + 1;
    const unavailable = (error: DatabaseUnavailableError): SourceUnavailableError =>
      new SourceUnavailableError(`source database "${source.database}" at ${error.host} stayed unavailable through ${attempts} attempt${attempts === 1 ? '' : 's'} (${error.reason}); retry later`);
    try {
      await pRetry(() => assertDatabaseReachable(db, target.url, setting), {
        retries: source.connectRetries,
        minTimeout: FIRST_CONNECT_RETRY_MS,
        factor: 2,
        shouldRetry: ({ error }) => error instanceof DatabaseUnavailableError,
      });
    } catch (error) {
      throw error instanceof DatabaseUnavailableError ? unavailable(error) : error;
    }
    const instant = { type: 'instant', nullable: false } as const;
    let query;
    try {
      query = buildSourceQuery(source, db.knex, {
        businessDate: target.businessDate,
        start: db.adapter.toDriverValue(instant, target.startsAt) as never,
        end: db.adapter.toDriverValue(instant, target.endsAt) as never,
        startsAt: target.startsAt,
        endsAt: target.endsAt,
      });
    } catch (error) {
      throw new UsageError(`${location}: ${(error as Error).message}`);
    }
    const rows = db.adapter.streamSnapshotRows(db.knex, query, source.fetchRows)[Symbol.asyncIterator]();
    let line = 0;
    for (;;) {
      let next: IteratorResult<Record<string, unknown>>;
      try {
        next = await rows.next();
      } catch (error) {
        const reason = (error as Error).message?.split('\n')[0] ?? String(error);
        if (line === 0 && db.adapter.isRejectedStatement(error)) {
          throw new UsageError(`source database "${source.database}" refused the query: ${reason} (${location}); fix the pipeline's query (a rerun cannot)`);
        }
        if (line === 0) {
          // Unreachable now (a restart between the check and the query) reads as such; anything else fails.
          await assertDatabaseReachable(db, target.url, setting).catch((lost: unknown) => {
            throw lost instanceof DatabaseUnavailableError ? unavailable(lost) : lost;
          });
        }
        throw new SourceError(location, line + 1, `reading the query failed${line === 0 ? '' : ` after ${line} rows`}: ${reason}`);
      }
      if (next.done) return;
      line += 1;
      const fields: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(next.value)) fields[name] = fieldValue(value);
      if (line === 1 && source.expectColumns) {
        const missing = source.expectColumns.filter((name) => !Object.hasOwn(fields, name));
        if (missing.length > 0) {
          throw new PipelineError(
            `${location}: the query's result has no column ${missing.map((name) => JSON.stringify(name)).join(', ')}, which the pipeline reads; its columns are ${Object.keys(fields).join(', ') || 'none'} (select them, or alias them with "as")`,
          );
        }
      }
      const parsed = source.row.safeParse(fields);
      if (parsed.success) {
        const row = { line, value: parsed.data };
        onRow?.(row);
        yield row;
      } else {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.join('.');
        const got = JSON.stringify(issue.path.length === 1 ? (fields[String(issue.path[0])] ?? null) : null);
        await quarantine({ source: location, line, reason: `${field || '(row)'}: ${issue.message} (got ${got})`, raw: JSON.stringify(fields) });
      }
    }
  } finally {
    await db.close();
  }
}
