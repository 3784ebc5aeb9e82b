import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type pg from 'pg';
import { quoteAnsiIdentifier as q } from '../quote-ansi-identifier.ts';
import { tabSeparatedEscapes, tabSeparatedLine } from '../tab-separated-line.ts';

/** Characters `COPY`'s text format reads specially inside a value, with their escapes. */
const COPY_TEXT = tabSeparatedEscapes({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' });

/**
 * One row as a line of `COPY … FROM STDIN`'s default text format (PostgreSQL docs, "COPY", File
 * Formats → Text Format): tab-separated, NULL written `\N`, backslash, tab, newline and carriage
 * return backslash-escaped (see `tabSeparatedLine`). Cheaper than CSV, which must double every
 * `"` of a JSON document. Ends with `\n`.
 */
export function copyTextLine(values: readonly unknown[]): string {
  return tabSeparatedLine(values, COPY_TEXT);
}

/**
 * Characters per write to the `COPY` stream. One write per line is several times slower; one
 * write per batch makes strings and Buffers of a MiB, which V8 allocates straight into the old
 * generation (large objects), where they pile up until a full GC: peak memory grows.
 */
const CHUNK_CHARS = 32 * 1024;

/**
 * Loads rows with `COPY … FROM STDIN` (text format) through pg-copy-streams on a pooled
 * connection, writing chunks of about {@link CHUNK_CHARS} characters.
 */
export async function postgresBulkLoad(
  knex: Knex,
  table: string,
  columns: readonly string[],
  batches: AsyncIterable<unknown[][]>,
): Promise<number> {
  let rows = 0;
  async function* chunks(): AsyncGenerator<string> {
    for await (const batch of batches) {
      let chunk = '';
      for (const row of batch) {
        chunk += copyTextLine(row);
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
        }
      }
      rows += batch.length;
      if (chunk.length > 0) yield chunk;
    }
  }
  const connection = (await knex.client.acquireConnection()) as pg.PoolClient;
  try {
    // Loaded here, not at start-up: a no-op run never stages (bin/idem.js start-up budget).
    const { from: copyFrom } = await import('pg-copy-streams');
    const copy = connection.query(copyFrom(`copy ${q(table)} (${columns.map(q).join(', ')}) from stdin`));
    await pipeline(Readable.from(chunks()), copy);
  } finally {
    await knex.client.releaseConnection(connection);
  }
  return rows;
}

/**
 * `TRUNCATE`, where the table has a page: a `DELETE` leaves its rows dead in the table until a
 * vacuum, so a staging table refilled every run (a backfill: hundreds a minute, faster than
 * autovacuum comes by) grew with them, and each scan of it read every earlier run's rows too.
 * A table its last run cleared (`clearPostgresStaging`) has no page left, and is left as it is:
 * `TRUNCATE` gives the table and each of its indexes a new file and syncs each index's file to
 * disk: 3–7 ms a run, and 3.8 s of a 305-date backfill's 13.3 s of extract + stage (medians of
 * five interleaved pairs). What a failed, killed or dry run left, or a clear whose `VACUUM` was
 * refused, is truncated.
 */
export async function emptyPostgresStaging(knex: Knex, staging: string): Promise<void> {
  const { rows } = await knex.raw('select pg_relation_size(to_regclass(?)) > 0 as "hasPages"', [q(staging)]);
  if (rows[0].hasPages) await knex.raw(`truncate table ${q(staging)}`);
}

/**
 * Clears a staging table at the end of its run: `DELETE`, then `VACUUM` (PostgreSQL docs,
 * "Routine Vacuuming"), which removes the dead rows from the table and its indexes and gives the
 * table's empty pages back, so the next run's `emptyPostgresStaging` finds no page. Outside any
 * transaction. A role that does not own the table gets a warning from `VACUUM`, not an error,
 * and the next run truncates instead (so pays both); so does a run while another transaction,
 * older than the `DELETE`, is still open (the rows may still be visible to it).
 */
export async function clearPostgresStaging(knex: Knex, staging: string): Promise<void> {
  await knex.raw(`delete from ${q(staging)}`);
  // SKIP_LOCKED (PostgreSQL 12+): a VACUUM that would wait for another's lock on the table (an
  // autovacuum against wraparound) skips it, with a warning. Nothing else it can meet (a
  // statement_timeout) may fail a run whose upsert committed: the next run truncates instead.
  await knex.raw(`vacuum (skip_locked) ${q(staging)}`).catch(() => undefined);
}

/**
 * `ANALYZE` of some columns (PostgreSQL docs, "Populating a Database": run ANALYZE afterwards).
 * A staging table refilled every run otherwise keeps the statistics of some earlier load, or
 * none, and the upsert's joins to the target were planned as hash joins over the whole target:
 * every run of a backfill cost more than the one before. The row count is refreshed whatever
 * the column list; leaving large columns out spares reading (and decompressing) their values.
 * Inside a transaction it counts that transaction's own rows. With `writtenRows`, only after a
 * large write (see `isLargeWrite`); `withStatistics` holds the tables already seen with column
 * statistics (the adapter's, for the process).
 */
export async function analyzePostgresTable(
  knex: Knex | Knex.Transaction,
  table: string,
  columns: readonly string[],
  writtenRows: number | undefined,
  withStatistics: Set<string>,
): Promise<void> {
  if (writtenRows !== undefined && !(await isLargeWrite(knex, table, writtenRows, withStatistics))) return;
  await knex.raw(`analyze ${q(table)} (${columns.map(q).join(', ')})`);
}

/**
 * Rows below which a write refreshes the statistics of a table only if it has no column
 * statistics: a stale row count costs its queries less than an `ANALYZE`, which reads up to
 * 30,000 rows' pages.
 */
const MIN_LARGE_WRITE_ROWS = 1000;

/** Autoanalyze's defaults (PostgreSQL docs, "The Autovacuum Daemon"): rows changed, at least… */
const AUTOANALYZE_THRESHOLD_ROWS = 50;
/** …plus this share of the rows the statistics last counted (`reltuples`). */
const AUTOANALYZE_SCALE_FACTOR = 0.1;

/**
 * The row count the statistics last took (`reltuples`, -1 where never analysed), and whether the
 * table has column statistics (`pg_stats`, which shows a role the tables it can read). The
 * count alone does not say so: an `ANALYZE` rolled back with a dry run, a `CREATE INDEX` or a
 * `VACUUM` writes it in place, while the column statistics go with the rollback or were never
 * taken.
 */
const STATISTICS_SQL = `
  select c.reltuples, exists (select 1 from pg_stats s where s.schemaname = n.nspname and s.tablename = c.relname) as "hasStatistics"
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.oid = to_regclass(?)`;

/**
 * Whether `writtenRows` is a large write for `table`: any write to a table without column
 * statistics, else at least {@link MIN_LARGE_WRITE_ROWS} rows and more than autoanalyze lets
 * change, with its default settings, before it refreshes a table. Autovacuum would come to it
 * too, but up to a minute later (its naptime), and not at all where it is off: the post stage
 * reads the target right after the upsert commits.
 *
 * Without column statistics the planner takes every equality for equally selective: the
 * ledger's per-record look-ups then went by its run index (one column to compare, not three),
 * reading every earlier item of the job for each record. A backfill of small days (none a large
 * write) cost more each date, up to 95 ms a look-up page by its 20th, until autovacuum came by.
 */
async function isLargeWrite(knex: Knex | Knex.Transaction, table: string, writtenRows: number, withStatistics: Set<string>): Promise<boolean> {
  if (writtenRows === 0) return false;
  // Planning the pg_stats view takes 1–2 ms, twice a run: a table seen with statistics keeps
  // them, so a small write to it is answered without asking again. (Statistics seen inside a
  // transaction this process then rolled back would stay in the set: the next small writes
  // would leave that table to autovacuum, as before any of this.)
  if (writtenRows < MIN_LARGE_WRITE_ROWS && withStatistics.has(table)) return false;
  const { rows } = await knex.raw(STATISTICS_SQL, [q(table)]);
  if (!rows[0]?.hasStatistics) return true;
  withStatistics.add(table);
  const counted = Math.max(Number(rows[0].reltuples), 0);
  return writtenRows >= MIN_LARGE_WRITE_ROWS && writtenRows > AUTOANALYZE_THRESHOLD_ROWS + AUTOANALYZE_SCALE_FACTOR * counted;
}
