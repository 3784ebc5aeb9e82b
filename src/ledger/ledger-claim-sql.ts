import type { Knex } from 'knex';
import type { DialectAdapter, SqlFragment } from '../dialect/dialect-adapter.ts';
import { LEDGER_ROW_COLUMNS, LEDGER_TABLE as LEDGER } from './ledger-item.ts';

/**
 * One claim of post ledger rows: up to `limit` rows of one run at one destination that are
 * `pending` and not under a claim (a live one, or one that lapsed less than `graceMs` ago), taken
 * in id order and stamped with the worker's name, a fresh token and an expiry. Instants are the
 * database's (see `DialectAdapter.instantFromNowSql`).
 */
export interface LedgerClaimRequest {
  readonly jobName: string;
  readonly runKey: string;
  readonly destination: string;
  /** The claiming process, e.g. `worker 6f1c…, pid 42 on etl-7`; written to `claimed_by`. */
  readonly worker: string;
  /** The new claim's token, written to `claim_token`: what the claimant's outcome writes must match. */
  readonly token: string;
  /**
   * Only rows with a greater id (0: from the start). A process claiming batch after batch passes
   * the last id it claimed, so each claim reads only its batch in the index, not every row before
   * it; a final claim from 0 picks up rows whose claims lapsed or were requeued meanwhile.
   */
  readonly afterId: number;
  /** The most rows to claim (≥ 1). */
  readonly limit: number;
  /** How long the new claim lasts, in ms from the database's now. */
  readonly ttlMs: number;
  /**
   * How long after another claim lapsed its rows may be claimed, in ms: the destination's takeover
   * grace (see `ResolvedDestination.takeoverGraceMs`).
   */
  readonly graceMs: number;
}

/** The dialect's capabilities a claim is built from. */
export type LedgerClaimDialect = Pick<DialectAdapter, 'skipLocked' | 'supportsReturning' | 'supportsOutput' | 'instantFromNowSql'>;

/**
 * The claimable rows of a claim, in standard SQL for every dialect but the database's clock:
 * `pending`, unclaimed or under a claim that lapsed at least `graceMs` ago, after an id. (A
 * `sending` row is never claimable: under mark-before-send its request may have reached the
 * destination.)
 */
export function claimableLedgerRows(dialect: Pick<DialectAdapter, 'instantFromNowSql'>, request: LedgerClaimRequest): SqlFragment {
  const lapsed = dialect.instantFromNowSql(-request.graceMs);
  return {
    sql: `job_name = ? and run_key = ? and destination = ? and status = 'pending' and (claim_expires_at is null or claim_expires_at < ${lapsed.sql}) and id > ?`,
    bindings: [request.jobName, request.runKey, request.destination, ...lapsed.bindings, request.afterId],
  };
}

/**
 * A claim's statement: it stamps the claimed rows (see {@link ledgerClaimStamp}) in one
 * statement, committed on its own. `returnsRows: true`: it also returns them. `false` (a dialect
 * with neither RETURNING nor OUTPUT): the caller reads them back by the claim's token.
 */
export interface LedgerClaimStatement {
  readonly sql: string;
  readonly bindings: readonly Knex.Value[];
  readonly returnsRows: boolean;
}

/** The columns a claim stamps, as `set` assignments (`claimed_by`, `claim_token`, `claim_expires_at`) with their bindings. */
export function ledgerClaimStamp(dialect: Pick<DialectAdapter, 'instantFromNowSql'>, request: LedgerClaimRequest, quote: (column: string) => string = (c) => c): SqlFragment {
  const expires = dialect.instantFromNowSql(request.ttlMs);
  return {
    sql: `${quote('claimed_by')} = ?, ${quote('claim_token')} = ?, ${quote('claim_expires_at')} = ${expires.sql}`,
    bindings: [request.worker, request.token, ...expires.bindings],
  };
}

/**
 * The SQL of one claim (see {@link LedgerClaimRequest}), in the shape the dialect's
 * capabilities allow. Its locking read reads the first `limit` claimable rows in id order and
 * skips rows another claimer holds locked (`DialectAdapter.skipLocked`).
 * - `supportsReturning` (PostgreSQL, SQLite): one `UPDATE … WHERE id IN (locking read)
 *   RETURNING` the {@link LEDGER_ROW_COLUMNS}. On PostgreSQL under READ COMMITTED a row another
 *   claimer committed meanwhile is re-checked against the WHERE and dropped (its claim is live now).
 * - `supportsOutput` (SQL Server): an UPDATE through a common table expression over the locking
 *   read, `TOP (n)` with its ORDER BY (a bare `UPDATE TOP (n)` takes arbitrary rows), with
 *   `OUTPUT` of the {@link LEDGER_ROW_COLUMNS}.
 * - neither (MySQL/MariaDB, which also cannot use LIMIT in an `IN` subquery): one
 *   `UPDATE … WHERE claimable ORDER BY id LIMIT n`, without the locking read. A locking read and
 *   an UPDATE of its ids would be two statements in one transaction, and a process stopped
 *   between them (a VM freeze, SIGSTOP) would keep those rows locked until it runs again. The
 *   UPDATE waits instead for rows another claim is stamping, for as long as that one statement
 *   takes, then re-reads them, finds them claimed and moves on (InnoDB re-reads the latest
 *   committed row after a lock wait).
 *   https://dev.mysql.com/doc/refman/8.0/en/innodb-locking-reads.html
 */
export function ledgerClaimStatement(dialect: LedgerClaimDialect, request: LedgerClaimRequest): LedgerClaimStatement {
  const { tableHint, suffix } = dialect.skipLocked;
  const claimable = claimableLedgerRows(dialect, request);
  if (dialect.supportsReturning) {
    const stamp = ledgerClaimStamp(dialect, request);
    return {
      sql: `update ${LEDGER} set ${stamp.sql} where id in (select id from ${LEDGER}${tableHint} where ${claimable.sql} order by id limit ?${suffix}) returning ${LEDGER_ROW_COLUMNS.join(', ')}`,
      bindings: [...stamp.bindings, ...claimable.bindings, request.limit],
      returnsRows: true,
    };
  }
  if (dialect.supportsOutput) {
    // T-SQL only, so written with its bracket quoting.
    const stamp = ledgerClaimStamp(dialect, request, (column) => `[${column}]`);
    return {
      sql: `with claimable as (select top (?) * from [${LEDGER}]${tableHint} where ${claimable.sql} order by [id]${suffix}) update claimable set ${stamp.sql} output ${LEDGER_ROW_COLUMNS.map((c) => `inserted.[${c}]`).join(', ')};`,
      bindings: [request.limit, ...claimable.bindings, ...stamp.bindings],
      returnsRows: true,
    };
  }
  const stamp = ledgerClaimStamp(dialect, request);
  return {
    sql: `update ${LEDGER} set ${stamp.sql} where ${claimable.sql} order by id limit ?`,
    bindings: [...stamp.bindings, ...claimable.bindings, request.limit],
    returnsRows: false,
  };
}
