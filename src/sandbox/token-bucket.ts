/** A bucket of up to `perSecond` tokens, refilled continuously at `perSecond` tokens per second. */
export class TokenBucket {
  readonly #perSecond: number;
  #tokens: number;
  #refilledAt: number;

  constructor(perSecond: number, now = performance.now()) {
    this.#perSecond = perSecond;
    this.#tokens = perSecond;
    this.#refilledAt = now;
  }

  /** Takes one token; false when the bucket is empty. `now` is in ms (`performance.now()`). */
  take(now = performance.now()): boolean {
    this.#tokens = Math.min(this.#perSecond, this.#tokens + ((now - this.#refilledAt) / 1000) * this.#perSecond);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
