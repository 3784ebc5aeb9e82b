import { jsonAnswer, type SandboxAnswer } from './sandbox-answer.ts';
import { canonicalJson } from './canonical-json.ts';

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

  /**
   * Decides what a request with `key` gets. A new key is reserved for it (see `begin`) and the
   * answer is undefined: do the work, then `complete` the key. The same request again (the same
   * body text, or the same JSON up to key order) gets the stored response with
   * `Idempotent-Replayed: true`, or 409 `idempotency_key_in_flight` while the first is still
   * being processed; another body gets 422 `idempotency_key_reused`.
   * @param raw the body text as received; @param body the same, parsed.
   */
  admit(key: string, raw: string, body: unknown): SandboxAnswer | undefined {
    const prior = this.#entries.get(key);
    if (prior === undefined) {
      this.begin(key, raw);
      return undefined;
    }
    if (prior.body !== raw && canonicalJson(JSON.parse(prior.body)) !== canonicalJson(body)) {
      return jsonAnswer(422, { error: 'idempotency_key_reused', message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.' });
    }
    if (prior.response === undefined) {
      return jsonAnswer(409, { error: 'idempotency_key_in_flight', message: 'Another request with this idempotency key is still being processed.' });
    }
    return { ...prior.response, headers: { 'idempotent-replayed': 'true' } };
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
