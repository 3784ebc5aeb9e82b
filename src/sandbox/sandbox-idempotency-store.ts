/** A response kept under an idempotency key, replayed verbatim for later requests with that key. */
export interface SandboxStoredResponse {
  status: number;
  body: unknown;
}

/** What the sandbox holds per key; no `response` yet means the first request is still in flight. */
export interface SandboxIdempotencyEntry {
  /** Canonical JSON of the first request's parsed body. */
  fingerprint: string;
  response?: SandboxStoredResponse;
}

/**
 * Idempotency keys in the two phases Stripe describes
 * (https://docs.stripe.com/api/idempotent_requests): reserved when a request starts executing,
 * then completed with its response. Keys never expire: a sandbox lives for one test or demo.
 */
export class SandboxIdempotencyStore {
  readonly #entries = new Map<string, SandboxIdempotencyEntry>();

  get(key: string): SandboxIdempotencyEntry | undefined {
    return this.#entries.get(key);
  }

  /** Reserves `key` for a request with this body fingerprint. */
  begin(key: string, fingerprint: string): void {
    this.#entries.set(key, { fingerprint });
  }

  /** Stores the response of the request that reserved `key`. */
  complete(key: string, response: SandboxStoredResponse): void {
    const entry = this.#entries.get(key);
    if (entry) entry.response = response;
  }

  clear(): void {
    this.#entries.clear();
  }
}
