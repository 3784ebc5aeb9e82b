/**
 * The most requests a run sends to its destinations after one round trip that proved its app
 * lock (docs/scaling.md, "A process's right to send"): so after the lock is lost (its session
 * ended by the server, a SQLite lease taken), at most this many more requests leave the run.
 */
export const SEND_BATCH_MAX = 16;

/**
 * Lets a run's requests leave in batches of at most {@link SEND_BATCH_MAX}, each batch only after
 * a round trip to the database proved the app lock (`prove`, `AppLock.assertHeld`), and every
 * request only after the lock's own check without a round trip (`check`, `AppLock.assertValid`).
 * No request leaves while a proof is under way, and a proof grants the next batch only once it
 * has succeeded, so a proof sent after the lock was lost lets nothing more out: the requests sent
 * after the loss are at most one batch, those the last proof that was answered before it granted.
 * The requests of all the run's items and destinations share the batches (one process, one lock).
 */
export class ProvedSendBatches {
  readonly #prove: () => Promise<void>;
  readonly #check: () => Promise<void>;
  readonly #size: number;
  /** Requests the last successful proof still lets out. */
  #left = 0;
  #proving: Promise<void> | undefined;

  /**
   * @param prove a round trip that proves the lock (`AppLock.assertHeld`). @throws what it throws.
   * @param check the lock's check without a round trip (`AppLock.assertValid`), before every request.
   * @param size requests per proof. @defaultValue {@link SEND_BATCH_MAX}
   */
  constructor(prove: () => Promise<void>, check: () => Promise<void>, size = SEND_BATCH_MAX) {
    this.#prove = prove;
    this.#check = check;
    this.#size = size;
  }

  /**
   * Proves the lock by a round trip now and grants a new batch (the run calls it as its post
   * stage begins, so the first requests do not wait for a proof together).
   * @throws LockLostError (what `prove` throws) when the lock is lost.
   */
  prove(): Promise<void> {
    this.#proving ??= this.#prove()
      .then(() => {
        this.#left = this.#size;
      })
      .finally(() => {
        this.#proving = undefined;
      });
    return this.#proving;
  }

  /**
   * Waits until one more request may leave: a place in a proved batch (proving the lock first
   * when the batch is used up), then the lock's check without a round trip, last, just before
   * the request leaves.
   * @throws LockLostError (what `check` or `prove` throws) when the lock is lost.
   */
  async admit(): Promise<void> {
    while (this.#left === 0) await this.prove();
    this.#left -= 1;
    await this.#check();
  }
}
