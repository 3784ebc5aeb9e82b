import type { Queryable } from '../db/queryable.ts';
import { retryLockConflict } from '../db/retry-lock-conflict.ts';
import { MAX_BATCH_CHANGES, updateLedgerItem, updateLedgerItems, type LedgerChange } from './ledger-outcomes.ts';

/** Outcomes written per statement. */
const FLUSH_ITEMS = MAX_BATCH_CHANGES;

/**
 * Writes post outcomes to the ledger, batched or one at a time.
 *
 * Batched (`batched: true`): one UPDATE per batch of a process's claimed items (see
 * `updateLedgerItems`) instead of one commit per item, so the post stage waits on the
 * destination, not on the database. Only for strategies where an outcome lost to a crash is
 * harmless: the item is still `pending`, and the rerun sends it with the same idempotency key, or
 * looks it up first.
 *
 * One at a time (`batched: false`): every outcome is committed before {@link record} resolves.
 * mark-before-send needs it: an item left `sending` by a crash goes to review.
 *
 * An outcome written under a claim token the item no longer carries (its claim was taken over,
 * or the item was moved to review meanwhile) changes nothing: it is refused, and `onRefused` is
 * told how many were (with the item's id when written one at a time).
 */
export class LedgerOutcomeWriter {
  readonly #q: Queryable;
  readonly #batched: boolean;
  #buffer: [number, LedgerChange][] = [];
  #writing: Promise<void> = Promise.resolve();
  #failed: Error | undefined;
  readonly #onRefused: (items: number, id?: number) => void;

  constructor(q: Queryable, options: { batched: boolean; onRefused?: (items: number, id?: number) => void }) {
    this.#q = q;
    this.#batched = options.batched;
    this.#onRefused = options.onRefused ?? (() => undefined);
  }

  /**
   * Records one outcome. Batched, it is queued, and once enough are queued they start being
   * written as one batch without waiting for it (the caller goes on sending; `flush` waits).
   * One at a time, it is written at once.
   * @throws (batched) the error of an earlier batch that failed to write, so the caller stops
   *   sending; (one at a time) the write's own error.
   */
  async record(id: number, change: LedgerChange): Promise<void> {
    if (!this.#batched) {
      const written = await updateLedgerItem(this.#q, id, change);
      if (written === 0 && change.claimToken !== undefined) this.#onRefused(1, id);
      return;
    }
    if (this.#failed) throw this.#failed;
    this.#buffer.push([id, change]);
    if (this.#buffer.length >= FLUSH_ITEMS) {
      this.flush().catch((error: Error) => {
        this.#failed ??= error;
      });
    }
  }

  /**
   * Runs `task` after every write queued so far, and holds later writes until it ends. The claim
   * renewal goes through here: it updates many of this process's rows in one statement, and run
   * beside a batch's transaction (which locks rows of the same set one by one, in another order)
   * the two could deadlock.
   */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#writing.then(task);
    this.#writing = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /**
   * Writes every queued outcome; resolves when they are committed.
   * @throws the error of any batch that failed to write.
   */
  async flush(): Promise<void> {
    // In id order: two transactions that lock rows of one set always lock them in the same order.
    const batch = this.#buffer.sort((a, b) => a[0] - b[0]);
    this.#buffer = [];
    const write = this.#writing.then(async () => {
      if (batch.length === 0) return;
      const claimed = batch.filter(([, change]) => change.claimToken !== undefined);
      const unclaimed = batch.filter(([, change]) => change.claimToken === undefined);
      for (const claimToken of new Set(claimed.map(([, change]) => change.claimToken!))) {
        const changes = claimed.filter(([, change]) => change.claimToken === claimToken);
        const written = await updateLedgerItems(this.#q, changes, claimToken);
        if (written < changes.length) this.#onRefused(changes.length - written);
      }
      if (unclaimed.length > 0) {
        await retryLockConflict(this.#q.adapter, () =>
          this.#q.knex.transaction(async (trx) => {
            for (const [id, change] of unclaimed) await updateLedgerItem({ knex: trx, adapter: this.#q.adapter }, id, change);
          }),
        );
      }
    });
    this.#writing = write.catch((error: Error) => {
      this.#failed ??= error;
    });
    await write;
    if (this.#failed) throw this.#failed;
  }
}
