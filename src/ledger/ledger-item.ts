/** The post ledger's table: one row per content version of a record per destination. */
export const LEDGER_TABLE = 'post_ledger';

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

/** A post ledger row as the driver returns it (the columns idem reads). @internal */
export interface LedgerRow {
  id: number | string;
  job_name: string;
  destination: string;
  source_system: string;
  source_reference: string;
  row_hash: string;
  idempotency_key: string;
  run_key: string;
  status: LedgerStatus;
  failure_kind: 'transient' | 'terminal' | null;
  attempts: number;
  remote_reference: string | null;
  last_http_status: number | null;
  last_error: string | null;
}

/**
 * The columns of a {@link LedgerRow}: what a claim returns of each row it stamps (not `*`: the
 * row's timestamps would be parsed for every item sent, and never read). @internal
 */
export const LEDGER_ROW_COLUMNS = [
  'id', 'job_name', 'destination', 'source_system', 'source_reference', 'row_hash', 'idempotency_key', 'run_key',
  'status', 'failure_kind', 'attempts', 'remote_reference', 'last_http_status', 'last_error',
] as const satisfies readonly (keyof LedgerRow)[];

/** A ledger row as the driver read it, as a {@link LedgerItem}. @internal */
export function toLedgerItem(row: LedgerRow): LedgerItem {
  return {
    id: Number(row.id),
    jobName: row.job_name,
    destination: row.destination,
    sourceSystem: row.source_system,
    sourceReference: row.source_reference,
    version: row.row_hash,
    idempotencyKey: row.idempotency_key,
    runKey: row.run_key,
    status: row.status,
    failureKind: row.failure_kind,
    attempts: row.attempts,
    remoteReference: row.remote_reference,
    lastHttpStatus: row.last_http_status,
    lastError: row.last_error,
  };
}
