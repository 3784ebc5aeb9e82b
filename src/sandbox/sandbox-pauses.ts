/**
 * The sandbox's waits (latency, hangs), which a closing server must not outlive: `stopAll()`
 * clears every pending timer and rejects its pause. A plain timer per pause: a promise timer with
 * an AbortSignal listener per request costs a measurable share of the sandbox's CPU.
 */
export class SandboxPauses {
  readonly #pending = new Map<NodeJS.Timeout, (error: Error) => void>();
  #stopped = false;

  /** True once `stopAll()` ran: a request failing now is being torn down, not broken. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * Resolves after `ms` milliseconds (at once for 0 or less).
   * @throws Error (rejects) when `stopAll()` runs first, or ran already.
   */
  pause(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    if (this.#stopped) return Promise.reject(new Error('the sandbox is closing'));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(timer);
        resolve();
      }, ms);
      this.#pending.set(timer, reject);
    });
  }

  /** Rejects every pending pause and every later one. */
  stopAll(): void {
    this.#stopped = true;
    for (const [timer, fail] of this.#pending) {
      clearTimeout(timer);
      fail(new Error('the sandbox is closing'));
    }
    this.#pending.clear();
  }
}
