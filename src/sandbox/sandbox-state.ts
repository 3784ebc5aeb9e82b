import { SandboxIdempotencyStore } from './sandbox-idempotency-store.ts';
import type { SandboxInvoiceBody } from './validate-invoice-body.ts';
import { validateSandboxProducts } from './validate-sandbox-products.ts';
import type { SandboxProduct } from './validate-sandbox-products.ts';

/**
 * A stored invoice: the body as sent (by its create, or by its last `PUT`, with the fields of any
 * `PATCH` since), plus the server-assigned `id` (`inv_000001`…), `created_at` and `updated_at`
 * (ISO 8601) and `revision`: 1 when created, one more for every update applied (a replayed
 * idempotent request applies nothing), so a test can tell an update applied once from twice.
 */
export interface SandboxRecord extends SandboxInvoiceBody {
  id: string;
  created_at: string;
  updated_at: string;
  revision: number;
}

/** One API request as received (admin and health requests are not logged). `at` is ISO 8601. */
export interface SandboxRequestLog {
  method: string;
  path: string;
  /** The query string as sent, with its `?` (`?page=2&per_page=100`), or '' when there is none. */
  query: string;
  /**
   * The body's `reference` for POST, PUT and PATCH (for a PUT or PATCH without one, the reference
   * of the record it names), the `?reference=` query for GET, else null.
   */
  reference: string | null;
  /** The `Idempotency-Key` header as sent, even when the sandbox ignores keys. */
  idempotencyKey: string | null;
  at: string;
}

/** The `GET /_admin/stats` body. `byReference` maps each reference to its number of records. */
export interface SandboxStats {
  records: number;
  postRequests: number;
  /** PUT and PATCH requests received. */
  updateRequests: number;
  getRequests: number;
  byReference: Record<string, number>;
  requests: SandboxRequestLog[];
}

/** Only the most recent requests are kept, so a long demo or benchmark cannot grow memory without bound. */
const REQUEST_LOG_LIMIT = 10_000;

/** Everything the sandbox "remote" holds: records, idempotency keys, request counts and the product catalogue. */
export class SandboxState {
  readonly idempotency = new SandboxIdempotencyStore();
  readonly #initialProducts: readonly SandboxProduct[];
  // Products are frozen copies, so they can be handed out without copying each one again.
  readonly #products = new Map<string, Readonly<SandboxProduct>>();
  /** The catalogue sorted by `stock_code`, rebuilt on the first read after a change. */
  #sortedProducts: Readonly<SandboxProduct>[] | undefined;
  /** The latest `updated_at` this state gave, in ms since the epoch. */
  #lastStampMs = 0;
  // Records are kept as JSON text (parsed again on every read, so callers get copies): one string
  // per record instead of an object graph per invoice line gives the garbage collector far less to
  // mark once a benchmark has posted a year of invoices, and `POST /invoices` answers the text.
  readonly #byId = new Map<string, StoredRecord>();
  readonly #byReference = new Map<string, StoredRecord[]>();
  #lastId = 0;
  #requests: SandboxRequestLog[] = [];
  #postRequests = 0;
  #updateRequests = 0;
  #getRequests = 0;

  /**
   * @param products - the catalogue the sandbox starts with, and returns to on `clear()`.
   * @throws TypeError when it is not a valid catalogue (see `validateSandboxProducts`).
   */
  constructor(products: readonly SandboxProduct[] = []) {
    this.#initialProducts = checkedProducts(products).map((product) => Object.freeze(this.#stamped({ ...product })));
    this.setProducts(this.#initialProducts);
  }

  /**
   * `product` with an `updated_at` (ISO 8601, UTC) when it has none: now on the sandbox's clock,
   * a millisecond after the last one given when the clock has not moved on, so no two changes
   * share an instant and an incremental read (`updated_since`) can tell them apart.
   */
  #stamped(product: SandboxProduct, force = false): SandboxProduct {
    if (!force && 'updated_at' in product) return product;
    this.#lastStampMs = Math.max(Date.now(), this.#lastStampMs + 1);
    return { ...product, updated_at: new Date(this.#lastStampMs).toISOString() };
  }

  /** POST requests received, including those answered by a fault, a 4xx or a replay. */
  get postRequests(): number {
    return this.#postRequests;
  }

  /** PUT and PATCH requests received, including those answered by a fault, a 4xx or a replay. */
  get updateRequests(): number {
    return this.#updateRequests;
  }

  /** GET requests received on the API routes. */
  get getRequests(): number {
    return this.#getRequests;
  }

  /** Every record, in creation order. */
  records(): SandboxRecord[] {
    return [...this.#byId.values()].map(parseRecord);
  }

  record(id: string): SandboxRecord | undefined {
    const stored = this.#byId.get(id);
    return stored && parseRecord(stored);
  }

  recordsByReference(reference: string): SandboxRecord[] {
    return (this.#byReference.get(reference) ?? []).map(parseRecord);
  }

  /** How many records carry `reference`: the "exactly one" check of a safe-to-run-twice sync. */
  countByReference(reference: string): number {
    return this.#byReference.get(reference)?.length ?? 0;
  }

  /**
   * Stores a record with the next sequential id.
   * @returns the record as JSON text: what `POST /invoices` answers, and replays under its key.
   */
  createRecordJson(invoice: SandboxInvoiceBody): string {
    this.#lastId += 1;
    const id = `inv_${String(this.#lastId).padStart(6, '0')}`;
    // `id` leads for readable output; server-assigned fields win over client fields of the same name.
    const now = new Date().toISOString();
    const record: SandboxRecord = Object.assign({ id }, invoice, { id, created_at: now, updated_at: now, revision: 1 });
    const stored: StoredRecord = { id, reference: record.reference, json: JSON.stringify(record) };
    this.#byId.set(id, stored);
    const sameReference = this.#byReference.get(stored.reference);
    if (sameReference) sameReference.push(stored);
    else this.#byReference.set(stored.reference, [stored]);
    return stored.json;
  }

  /**
   * Updates a record in place: `replace` (PUT) keeps only `fields` as its body, `merge` (PATCH)
   * sets the given fields over the body it has. Its `id`, `reference`, and `created_at` stay;
   * `updated_at` becomes now and `revision` one more.
   * @returns the record as JSON text (what the update answers, and replays under its key), or
   *   undefined when there is no record with this id.
   */
  updateRecordJson(id: string, fields: Readonly<Record<string, unknown>>, mode: 'replace' | 'merge'): string | undefined {
    const stored = this.#byId.get(id);
    if (!stored) return undefined;
    const current = parseRecord(stored);
    const body = mode === 'replace' ? { ...fields } : { ...current, ...fields };
    const record: SandboxRecord = Object.assign({ id }, body, {
      id,
      reference: current.reference,
      created_at: current.created_at,
      updated_at: new Date().toISOString(),
      revision: current.revision + 1,
    }) as SandboxRecord;
    const updated: StoredRecord = { id, reference: current.reference, json: JSON.stringify(record) };
    this.#byId.set(id, updated);
    this.#byReference.set(current.reference, (this.#byReference.get(current.reference) ?? []).map((r) => (r.id === id ? updated : r)));
    return updated.json;
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

  /** The catalogue, sorted by `stock_code` (UTF-16 code-unit order, so `85123A` before `85123a`). */
  products(): Readonly<SandboxProduct>[] {
    this.#sortedProducts ??= [...this.#products.values()].sort((a, b) => (a.stock_code < b.stock_code ? -1 : a.stock_code > b.stock_code ? 1 : 0));
    return [...this.#sortedProducts];
  }

  product(stockCode: string): Readonly<SandboxProduct> | undefined {
    return this.#products.get(stockCode);
  }

  /**
   * Replaces the whole catalogue (frozen copies are kept: later changes to `products` do not leak
   * in). A product without `updated_at` gets one (see `#stamped`).
   * @throws TypeError when it is not a valid catalogue (see `validateSandboxProducts`).
   */
  setProducts(products: readonly SandboxProduct[]): void {
    const valid = checkedProducts(products);
    this.#products.clear();
    for (const product of valid) this.#products.set(product.stock_code, Object.freeze(this.#stamped({ ...product })));
    this.#sortedProducts = undefined;
  }

  /**
   * Changes the given fields of one product, as an operator editing the catalogue would;
   * `stock_code` stays (it names the product), and `updated_at` becomes now (see `#stamped`)
   * unless `fields` gives one.
   * @returns the product as it is now, or undefined when no product has this code.
   */
  updateProduct(stockCode: string, fields: Readonly<Record<string, unknown>>): Readonly<SandboxProduct> | undefined {
    const product = this.#products.get(stockCode);
    if (!product) return undefined;
    const changed = { ...product, ...fields, stock_code: stockCode };
    const updated = Object.freeze('updated_at' in fields ? changed : this.#stamped(changed, true));
    this.#products.set(stockCode, updated);
    this.#sortedProducts = undefined;
    return updated;
  }

  logRequest(request: SandboxRequestLog): void {
    if (request.method === 'POST') this.#postRequests += 1;
    if (request.method === 'PUT' || request.method === 'PATCH') this.#updateRequests += 1;
    if (request.method === 'GET') this.#getRequests += 1;
    this.#requests.push(request);
    if (this.#requests.length > REQUEST_LOG_LIMIT) this.#requests.shift();
  }

  stats(): SandboxStats {
    return {
      records: this.#byId.size,
      postRequests: this.#postRequests,
      updateRequests: this.#updateRequests,
      getRequests: this.#getRequests,
      byReference: Object.fromEntries([...this.#byReference].map(([reference, records]) => [reference, records.length])),
      requests: [...this.#requests],
    };
  }

  /** Forgets records, keys and counts; ids start again at `inv_000001`; the catalogue is the initial one again. */
  clear(): void {
    this.idempotency.clear();
    this.setProducts(this.#initialProducts);
    this.#byId.clear();
    this.#byReference.clear();
    this.#lastId = 0;
    this.#requests = [];
    this.#postRequests = 0;
    this.#updateRequests = 0;
    this.#getRequests = 0;
  }
}

/** A record as the state keeps it: its JSON text, and the fields it is found by. */
interface StoredRecord {
  readonly id: string;
  readonly reference: string;
  readonly json: string;
}

function parseRecord(stored: StoredRecord): SandboxRecord {
  return JSON.parse(stored.json) as SandboxRecord;
}

function checkedProducts(products: readonly SandboxProduct[]): readonly SandboxProduct[] {
  const validation = validateSandboxProducts(products);
  if (!validation.ok) throw new TypeError(`invalid catalogue: ${validation.details.map((d) => `${d.field} ${d.message}`).join('; ')}`);
  return validation.products;
}
