/** A response kept under an idempotency key, replayed byte for byte for later requests with that key. */
export interface SandboxStoredResponse {
  status: number;
  /** The response body as JSON text. */
  json: string;
}

/** What the sandbox holds per key; no `response` yet means the first request is still in flight. */
export interface SandboxIdempotencyEntry {
  /**
   * The first request's body text as received. A later request with the key is the same request
   * when its body is this text, or the same JSON up to key order (see `canonicalJson`): the
   * canonical form is only computed then, so a key used once costs no canonicalisation.
   */
  body: string;
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

  /** Reserves `key` for a request with this body text. */
  begin(key: string, body: string): void {
    this.#entries.set(key, { body });
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
