import type { Knex } from 'knex';
import type { Queryable } from '../db/queryable.ts';
import { retryLockConflict } from '../db/retry-lock-conflict.ts';
import { column } from '../column/column-type.ts';

const INSTANT = column.instant();

/**
 * Runs one ledger write, again on a lock conflict (concurrent workers write the same table):
 * see `retryLockConflict`. Inside a caller's transaction it runs once: a conflict has rolled the
 * whole transaction back, so only the caller can start it again. @internal
 */
export function ledgerWrite<T>(q: Queryable, write: () => Promise<T>): Promise<T> {
  return (q.knex as Knex.Transaction).isTransaction ? write() : retryLockConflict(q.adapter, write);
}

/** An ISO instant as the driver writes it into the ledger's instant columns. @internal */
export function ledgerInstant(q: Queryable, iso: string): Knex.Value {
  return q.adapter.toDriverValue(INSTANT, iso) as Knex.Value;
}

/**
 * The database's current instant plus `offsetMs` (see `DialectAdapter.instantFromNowSql`), for
 * the ledger's claim expiries: stamped and compared by one clock, whichever host writes them. @internal
 */
export function databaseInstant(q: Queryable, offsetMs = 0): Knex.Raw {
  const { sql, bindings } = q.adapter.instantFromNowSql(offsetMs);
  return q.knex.raw(sql, [...bindings]);
}
