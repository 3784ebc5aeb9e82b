import type { Knex } from 'knex';

/**
 * One claim of post ledger rows (see `DialectAdapter.claimLedgerItems`): up to `limit` rows of
 * one run at one destination that are `pending` and not under a live claim, taken in id order
 * and stamped with the worker's name and an expiry. Instants are driver values (the adapter's
 * `toDriverValue` of an instant).
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
