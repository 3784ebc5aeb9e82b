import type { Knex } from 'knex';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import { LEDGER_TABLE as LEDGER } from './ledger-item.ts';

/**
 * One claim of post ledger rows: up to `limit` rows of one run at one destination that are
 * `pending` and not under a live claim, taken in id order and stamped with the worker's name
 * and an expiry. Instants are driver values (the adapter's `toDriverValue` of an instant).
 */
export interface LedgerClaimRequest {
  readonly jobName: string;
  readonly runKey: string;
  readonly destination: string;
  /** The claiming process, e.g. `worker 6f1c…, pid 42 on etl-7`; written to `claimed_by`. */
  readonly worker: string;
  /**
   * Only rows with a greater id (0: from the start). A process claiming batch after batch passes
   * the last id it claimed, so each claim reads only its batch in the index, not every row before
   * it; a final claim from 0 picks up rows whose claims lapsed or were requeued meanwhile.
   */
  readonly afterId: number;
  /** The most rows to claim (≥ 1). */
  readonly limit: number;
  /** Now, as a driver value: a claim whose `claim_expires_at` is before it has lapsed. */
  readonly now: Knex.Value;
  /** The new claim's expiry, as a driver value. */
  readonly expires: Knex.Value;
}

/**
 * The claimable rows, in standard SQL for every dialect: `pending`, and unclaimed or under a
 * lapsed claim, after an id. Bindings: job_name, run_key, destination, now, after id. (A `sending` row is never
 * claimable: under mark-before-send its request may have reached the destination.)
 */
export const CLAIMABLE_LEDGER_ROWS_SQL =
  "job_name = ? and run_key = ? and destination = ? and status = 'pending' and (claim_expires_at is null or claim_expires_at < ?) and id > ?";

/** The bindings of {@link CLAIMABLE_LEDGER_ROWS_SQL}, in order. */
export function claimableBindings(request: LedgerClaimRequest): Knex.Value[] {
  return [request.jobName, request.runKey, request.destination, request.now, request.afterId];
}

/** The dialect's capabilities a claim is built from. */
export type LedgerClaimDialect = Pick<DialectAdapter, 'skipLocked' | 'supportsReturning' | 'supportsOutput'>;

/**
 * A claim's statement. `claims: true`: it stamps the rows and returns them. `claims: false` (a
 * dialect with neither RETURNING nor OUTPUT): it is a locking read of the claimable rows, whose
 * ids the caller then stamps in the same transaction.
 */
export interface LedgerClaimStatement {
  readonly sql: string;
  readonly bindings: readonly Knex.Value[];
  readonly claims: boolean;
}

/**
 * The SQL of one claim (see {@link LedgerClaimRequest}), in the shape the dialect's
 * capabilities allow. Its locking read reads the first `limit` claimable rows in id order and
 * skips rows another claimer holds locked (`DialectAdapter.skipLocked`).
 * - `supportsReturning` (PostgreSQL, SQLite): one `UPDATE … WHERE id IN (locking read)
 *   RETURNING *`. On PostgreSQL under READ COMMITTED a row another claimer committed meanwhile is
 *   re-checked against the WHERE and dropped (its claim is live now).
 * - `supportsOutput` (SQL Server): an UPDATE through a common table expression over the locking
 *   read, `TOP (n)` with its ORDER BY (a bare `UPDATE TOP (n)` takes arbitrary rows), with
 *   `OUTPUT inserted.*`.
 * - neither (MySQL/MariaDB, which also cannot use LIMIT in an `IN` subquery): the locking read
 *   alone.
 */
export function ledgerClaimStatement(dialect: LedgerClaimDialect, request: LedgerClaimRequest): LedgerClaimStatement {
  const { tableHint, suffix } = dialect.skipLocked;
  const claimable = claimableBindings(request);
  if (dialect.supportsReturning) {
    return {
      sql:
        `update ${LEDGER} set claimed_by = ?, claim_expires_at = ? ` +
        `where id in (select id from ${LEDGER}${tableHint} where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ?${suffix}) ` +
        'returning *',
      bindings: [request.worker, request.expires, ...claimable, request.limit],
      claims: true,
    };
  }
  if (dialect.supportsOutput) {
    // T-SQL only, so written with its bracket quoting.
    return {
      sql:
        `with claimable as (select top (?) * from [${LEDGER}]${tableHint} where ${CLAIMABLE_LEDGER_ROWS_SQL} order by [id]${suffix}) ` +
        'update claimable set [claimed_by] = ?, [claim_expires_at] = ? output inserted.*;',
      bindings: [request.limit, ...claimable, request.worker, request.expires],
      claims: true,
    };
  }
  return {
    sql: `select * from ${LEDGER}${tableHint} where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ?${suffix}`,
    bindings: [...claimable, request.limit],
    claims: false,
  };
}
