/**
 * The API routes a scripted fault can hit; `PUT /invoices/:id` stands for PATCH as well (an
 * update), and each `/invoices` route for its `/items` twin.
 */
export type SandboxFaultRoute = 'POST /invoices' | 'PUT /invoices/:id' | 'DELETE /invoices/:id' | 'GET /products';

/** Narrows which API requests consume a fault, and how many. */
export interface SandboxFaultScope {
  /** Only requests to this route consume the fault; default 'POST /invoices'. */
  route?: SandboxFaultRoute;
  /**
   * `POST /invoices` and `PUT /invoices/:id` only: only requests for this `reference` (the body's,
   * or for an update without one, the record's) consume the fault; omitted = any such request.
   * A fault with a `reference` never matches `GET /products`.
   */
  reference?: string;
  /** How many matching requests the fault applies to before it is gone; default 1. */
  count?: number;
}

/**
 * A scripted failure, consumed in queue order by the next matching request (`POST /invoices`
 * unless `route` says an update, `PUT /invoices/:id` (or PATCH), whose commit is the update, or
 * `GET /products`, where nothing is committed, so the `-after-commit` kinds
 * act like `reset`, a plain hang or a plain status, and `late-commit` like a slow answer):
 * - `status`: answer `status` (e.g. 503, 429, 400) and create nothing. `retryAfterSeconds` sets
 *   `Retry-After` (seconds); `body` replaces the default `{ error: "<status text>" }` JSON body.
 * - `reset`: reset the TCP connection without answering; nothing is created.
 * - `reset-after-commit`: process the request (the record and its idempotent response are stored),
 *   then reset the connection instead of answering.
 * - `hang-after-commit`: process the request, then never answer, or answer only after `ms`
 *   milliseconds, so the client's timeout fires first. `close()` still ends the request.
 * - `status-after-commit`: process the request, then answer `status` instead of its result: a
 *   gateway whose upstream applied the request but that answers 502 or 504.
 * - `late-commit`: wait `ms` milliseconds without answering, then process the request and answer:
 *   a destination that applies a request after the client gave up on it (its timeout fired first).
 */
export type SandboxFault =
  | (SandboxFaultScope & { kind: 'status'; status: number; retryAfterSeconds?: number; body?: unknown })
  | (SandboxFaultScope & { kind: 'reset' })
  | (SandboxFaultScope & { kind: 'reset-after-commit' })
  | (SandboxFaultScope & { kind: 'hang-after-commit'; ms?: number })
  | (SandboxFaultScope & { kind: 'status-after-commit'; status: number; body?: unknown })
  | (SandboxFaultScope & { kind: 'late-commit'; ms: number });

/** Behaviour switches of a running sandbox; each omitted field keeps its current value. */
export interface SandboxSettings {
  /** Delay in ms before answering every API request (admin and health are exempt); default 0. */
  latencyMs?: number;
  /**
   * Honour the `Idempotency-Key` header as Stripe documents it
   * (https://docs.stripe.com/api/idempotent_requests); `false` ignores the header so every POST
   * creates a record. Default true.
   */
  idempotencyKeys?: boolean;
  /** Token-bucket limit on API requests per second; over it → 429 with `Retry-After: 1`. 0 (default) = unlimited. */
  maxRequestsPerSecond?: number;
}
