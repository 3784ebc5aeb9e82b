import { SandboxAdminApi } from './sandbox-admin-api.ts';
import { SandboxApiRoutes } from './sandbox-api-routes.ts';
import { SandboxBehaviour } from './sandbox-behaviour.ts';
import type { SandboxFault, SandboxSettings } from './sandbox-fault.ts';
import { SandboxFaultInjection } from './sandbox-fault-injection.ts';
import { SandboxFaultQueue } from './sandbox-fault-queue.ts';
import { loadSandboxProducts } from './load-sandbox-products.ts';
import { SandboxPauses } from './sandbox-pauses.ts';
import { sandboxRouter } from './sandbox-router.ts';
import { startSandboxServer } from './sandbox-server.ts';
import { SandboxState } from './sandbox-state.ts';
import type { SandboxRequestLog } from './sandbox-state.ts';
import type { SandboxProduct } from './validate-sandbox-products.ts';

/** Where to listen, the initial {@link SandboxSettings}, and a hook seeing every logged API request. */
export interface SandboxApiOptions extends SandboxSettings {
  /** TCP port; default 0 = a free port chosen by the OS. */
  port?: number;
  /** Interface to bind; default '127.0.0.1' (loopback only). */
  host?: string;
  /**
   * The product catalogue `GET /products` starts with (and returns to on `reset()`); default the
   * bundled fixtures/online-retail/products.json (see `loadSandboxProducts`).
   */
  products?: readonly SandboxProduct[];
  onRequest?: (request: SandboxRequestLog) => void;
}

/** A running sandbox accounting API. */
export interface SandboxApi {
  /** Base URL without trailing slash, e.g. 'http://127.0.0.1:54321'. */
  readonly url: string;
  readonly port: number;
  readonly state: SandboxState;
  /** Changes the given settings only; a new `maxRequestsPerSecond` starts from a full bucket. */
  configure(settings: SandboxSettings): void;
  /** Appends scripted faults to the queue. */
  addFaults(faults: readonly SandboxFault[]): void;
  /** Clears records, idempotency keys, counts and queued faults, and restores the initial catalogue; settings stay. */
  reset(): void;
  /** Stops listening and destroys every open socket, hung requests included. Safe to call twice. */
  close(): Promise<void>;
}

/** The bundled catalogue, read once per process (the state keeps frozen copies, so sharing it is safe). */
let bundledProducts: SandboxProduct[] | undefined;

/**
 * Starts a loopback HTTP server that behaves like an accounting API, for dev, demos and tests.
 *
 * API routes: `POST /invoices` (201 `{ id, created_at, updated_at, revision: 1, ...body }`; 400
 * `{ error: "validation_failed", details }` without a string `reference` or a `type` of
 * "invoice" | "credit_note" | "item"), `PUT /invoices/:id` (replace the record's body, validated as a
 * create's, its `reference` the record's) and `PATCH /invoices/:id` (merge the given fields): 200
 * the record with `revision` one more and a new `updated_at`, 404 for an unknown id; both under
 * idempotency keys as a POST is,
 * `GET /invoices?reference=R` (`{ data: [...] }`), `GET /invoices/:id` (record or 404),
 * `DELETE /invoices/:id` (the record is gone: 200 `{ id, deleted: true }`, 404 for an unknown id;
 * under idempotency keys too, a repeat replaying the first answer), each with an `/items` twin
 * over the same records (a shop's catalogue items, `type: "item"`), and
 * `GET /products`, a product catalogue paged by cursor, page number or `Link` header, sorted by
 * code or by `updated_at`, and filtered by `updated_since` (see `pageSandboxProducts`).
 * `Idempotency-Key` follows https://docs.stripe.com/api/idempotent_requests: the first response is
 * stored and replayed for the same key and body with `Idempotent-Replayed: true`; a different body
 * (canonical JSON) gets 422 `idempotency_key_reused`; a key still in flight gets 409.
 *
 * Admin routes, for a sandbox in another process: `GET /_admin/stats` ({@link SandboxStats}),
 * `GET /_admin/records` (`{ data }`), `POST /_admin/reset`, `POST /_admin/faults` with
 * `{ latencyMs?, idempotencyKeys?, maxRequestsPerSecond?, faults? }` (given settings change; `faults`
 * replaces the queue; a bad or unknown field is a 400 whose `details` name it, e.g.
 * `faults[0].kind`), `GET /_admin/products` (`{ data }`), `PUT /_admin/products` (replace the
 * catalogue with a JSON array of products; 200 `{ products: n }`), `PATCH /_admin/products/:code`
 * (merge a JSON object into one product; 200 the product, 404 for an unknown code), and
 * `GET /health`. Every body is JSON. Latency, the rate limit and faults (with `route`) apply to
 * updates, deletions and `GET /products` as to the other API routes; admin routes are exempt.
 */
export async function startSandboxApi(options: SandboxApiOptions = {}): Promise<SandboxApi> {
  const state = new SandboxState(options.products ?? (bundledProducts ??= loadSandboxProducts()));
  const faults = new SandboxFaultQueue();
  const behaviour = new SandboxBehaviour();
  behaviour.configure(options);
  const pauses = new SandboxPauses();
  const reset = (): void => {
    state.clear();
    faults.clear();
  };
  const api = new SandboxApiRoutes({ state, behaviour, faults, injection: new SandboxFaultInjection(pauses), pauses, onRequest: options.onRequest });
  const admin = new SandboxAdminApi({ state, behaviour, faults, reset });
  const server = await startSandboxServer(sandboxRouter({ api, admin, pauses }), { host: options.host ?? '127.0.0.1', port: options.port ?? 0 }, pauses);
  return {
    url: server.url,
    port: server.port,
    state,
    configure: (settings) => behaviour.configure(settings),
    addFaults: (list) => faults.add(list),
    reset,
    close: () => server.close(),
  };
}
