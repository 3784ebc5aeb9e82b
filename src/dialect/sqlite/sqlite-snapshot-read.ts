import type Sqlite from 'better-sqlite3';
import type { Knex } from 'knex';
import type { SqlFragment } from '../dialect-adapter.ts';
import type { SnapshotReadSteps, SnapshotRow } from '../snapshot-read.ts';

/** Marks an error SQLite raised preparing the statement, not running it. */
const NOT_PREPARED = Symbol('idem.sqliteNotPrepared');

/**
 * SQLite: `PRAGMA query_only` (the connection writes nothing), then a deferred `BEGIN`, whose
 * first read starts the read transaction: in WAL mode it sees the database as of that read
 * however many writers commit meanwhile (https://sqlite.org/wal.html, "Concurrency"); in a
 * rollback journal its shared lock keeps writers out until the end. Rows come one at a time from
 * better-sqlite3's `iterate()`.
 */
export const SQLITE_SNAPSHOT_READ: SnapshotReadSteps = {
  begin: ['PRAGMA query_only = ON', 'BEGIN'],
  *rows(knex: Knex, connection: unknown, query: SqlFragment): Generator<SnapshotRow> {
    const native = knex.raw(query.sql, query.bindings as Knex.Value[]).toSQL().toNative();
    // better-sqlite3 binds numbers, strings, bigints, buffers and null, not booleans.
    const bindings = native.bindings.map((value) => (typeof value === 'boolean' ? Number(value) : value));
    let statement: Sqlite.Statement;
    try {
      statement = (connection as Sqlite.Database).prepare(native.sql);
    } catch (error) {
      throw Object.assign(error as Error, { [NOT_PREPARED]: true });
    }
    yield* statement.iterate(...bindings) as IterableIterator<SnapshotRow>;
  },
  end: 'COMMIT',
};

/**
 * A statement SQLite could not prepare (no such column or table, a syntax error: `SQLITE_ERROR`
 * from `prepare()`). SQLite gives a failure while the statement runs (an integer overflow) the
 * same code, so only where it was raised tells them apart. https://sqlite.org/rescode.html
 */
export function isRejectedSqliteStatement(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[NOT_PREPARED] === true;
}
