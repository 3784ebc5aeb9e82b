/**
 * A post ledger row's status: `pending` (to send), `sending` (mark-before-send: the request may
 * be in flight), `posted`, `failed` (with `failure_kind` transient — a rerun retries it — or
 * terminal — an operator must act), `review` (unknown outcome: an operator checks the
 * destination), `superseded` (a newer content version of the record was enqueued first).
 */
export type LedgerStatus = 'pending' | 'sending' | 'posted' | 'failed' | 'review' | 'superseded';

/** One post ledger row, as idem reads it. */
export interface LedgerItem {
  readonly id: number;
  readonly jobName: string;
  readonly destination: string;
  readonly sourceSystem: string;
  readonly sourceReference: string;
  /** The content version (`row_hash`) this item posts. */
  readonly version: string;
  readonly idempotencyKey: string;
  readonly runKey: string;
  readonly status: LedgerStatus;
  readonly failureKind: 'transient' | 'terminal' | null;
  readonly attempts: number;
  readonly remoteReference: string | null;
  readonly lastHttpStatus: number | null;
  readonly lastError: string | null;
}
