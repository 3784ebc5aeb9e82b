import { SandboxIdempotencyStore } from './sandbox-idempotency-store.ts';
import type { SandboxInvoiceBody } from './validate-invoice-body.ts';

/** A created invoice: the body as sent plus the server-assigned `id` (`inv_000001`…) and `created_at` (ISO 8601). */
export interface SandboxRecord extends SandboxInvoiceBody {
  id: string;
  created_at: string;
}

/** One API request as received (admin and health requests are not logged). `at` is ISO 8601. */
export interface SandboxRequestLog {
  method: string;
  path: string;
  /** The body's `reference` for POST, the `?reference=` query for GET, else null. */
  reference: string | null;
  /** The `Idempotency-Key` header as sent, even when the sandbox ignores keys. */
  idempotencyKey: string | null;
  at: string;
}

/** The `GET /_admin/stats` body. `byReference` maps each reference to its number of records. */
export interface SandboxStats {
  records: number;
  postRequests: number;
  getRequests: number;
  byReference: Record<string, number>;
  requests: SandboxRequestLog[];
}

/** Only the most recent requests are kept, so a long demo or benchmark cannot grow memory without bound. */
const REQUEST_LOG_LIMIT = 10_000;

/** Everything the sandbox "remote" holds: records, idempotency keys and request counts. */
export class SandboxState {
  readonly idempotency = new SandboxIdempotencyStore();
  readonly #byId = new Map<string, SandboxRecord>();
  readonly #byReference = new Map<string, SandboxRecord[]>();
  #lastId = 0;
  #requests: SandboxRequestLog[] = [];
  #postRequests = 0;
  #getRequests = 0;

  /** POST requests received, including those answered by a fault, a 4xx or a replay. */
  get postRequests(): number {
    return this.#postRequests;
  }

  /** GET requests received on the API routes. */
  get getRequests(): number {
    return this.#getRequests;
  }

  /** Every record, in creation order. */
  records(): SandboxRecord[] {
    return [...this.#byId.values()];
  }

  record(id: string): SandboxRecord | undefined {
    return this.#byId.get(id);
  }

  recordsByReference(reference: string): SandboxRecord[] {
    return [...(this.#byReference.get(reference) ?? [])];
  }

  /** How many records carry `reference`: the "exactly one" check of a safe-to-run-twice sync. */
  countByReference(reference: string): number {
    return this.#byReference.get(reference)?.length ?? 0;
  }

  /** Stores a record with the next sequential id. */
  createRecord(invoice: SandboxInvoiceBody): SandboxRecord {
    this.#lastId += 1;
    const id = `inv_${String(this.#lastId).padStart(6, '0')}`;
    // `id` leads for readable output; server-assigned fields win over client fields of the same name.
    const record: SandboxRecord = Object.assign({ id }, invoice, { id, created_at: new Date().toISOString() });
    this.#byId.set(id, record);
    const sameReference = this.#byReference.get(record.reference);
    if (sameReference) sameReference.push(record);
    else this.#byReference.set(record.reference, [record]);
    return record;
  }

  /** Deletes (voids) a record, as an operator at the destination might. @returns whether it existed. */
  deleteRecord(id: string): boolean {
    const record = this.#byId.get(id);
    if (!record) return false;
    this.#byId.delete(id);
    const rest = (this.#byReference.get(record.reference) ?? []).filter((r) => r.id !== id);
    if (rest.length) this.#byReference.set(record.reference, rest);
    else this.#byReference.delete(record.reference);
    return true;
  }

  logRequest(request: SandboxRequestLog): void {
    if (request.method === 'POST') this.#postRequests += 1;
    if (request.method === 'GET') this.#getRequests += 1;
    this.#requests.push(request);
    if (this.#requests.length > REQUEST_LOG_LIMIT) this.#requests.shift();
  }

  stats(): SandboxStats {
    return {
      records: this.#byId.size,
      postRequests: this.#postRequests,
      getRequests: this.#getRequests,
      byReference: Object.fromEntries([...this.#byReference].map(([reference, records]) => [reference, records.length])),
      requests: [...this.#requests],
    };
  }

  /** Forgets records, keys and counts; ids start again at `inv_000001`. */
  clear(): void {
    this.idempotency.clear();
    this.#byId.clear();
    this.#byReference.clear();
    this.#lastId = 0;
    this.#requests = [];
    this.#postRequests = 0;
    this.#getRequests = 0;
  }
}
