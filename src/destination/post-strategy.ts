/**
 * How a destination is kept from creating a second remote record, or applying an update twice
 * (a changed record sent as an update of `PostedRow.remoteReference`; docs/architecture.md,
 * "Stage flow"). Each is one module under `strategies/` behind `PostStrategyModule`, found by
 * its name with `postStrategyOf`. Each holds per content version, for a create and an update alike:
 * - `idempotency-key`: every attempt, retry and rerun sends the same `Idempotency-Key` header
 *   (derived from the pipeline, the business key and the content version); the destination
 *   answers a repeat with the first response. An unknown outcome is retried with the same key.
 * - `check-before-create`: before every create or update, look the record up at the destination
 *   by its reference; send only when its current record there is not of this content version
 *   (for an update: check-before-update, the remote version compared). An
 *   unknown outcome is retried, and the retry waits the destination's settle delay, then looks up
 *   first.
 * - `mark-before-send`: the ledger row becomes `sending` (committed) before the request and
 *   `posted` after. An unknown outcome (a timeout after sending, a crash, a gateway's 5xx) goes to
 *   `review` and is never resent blindly; only failures that prove nothing was done (see
 *   `requestMayHaveApplied`) are retried.
 */
export type PostStrategy = 'idempotency-key' | 'check-before-create' | 'mark-before-send';

export const POST_STRATEGIES: readonly PostStrategy[] = ['idempotency-key', 'check-before-create', 'mark-before-send'];
