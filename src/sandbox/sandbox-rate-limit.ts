import { TokenBucket } from './token-bucket.ts';

/** The sandbox's limit on API requests per second (a token bucket); 0 = unlimited, the default. */
export class SandboxRateLimit {
  #perSecond = 0;
  #bucket: TokenBucket | undefined;

  get perSecond(): number {
    return this.#perSecond;
  }

  /** Sets the limit; the bucket starts full, so a new limit never throttles at once. */
  set perSecond(perSecond: number) {
    this.#perSecond = perSecond;
    this.#bucket = perSecond > 0 ? new TokenBucket(perSecond) : undefined;
  }

  /** Takes a token for one request: false = over the limit (answer 429). */
  admit(): boolean {
    return this.#bucket?.take() ?? true;
  }
}
