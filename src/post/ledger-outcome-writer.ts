import type { Queryable } from './ledger-queries.ts';
import { updateLedgerItem } from './ledger-queries.ts';

type Change = Parameters<typeof updateLedgerItem>[2];

/** Outcomes written per transaction. */
const FLUSH_ITEMS = 100;

/**
 * Writes post outcomes to the ledger in small transactions instead of one commit per item, so
 * the post stage waits on the destination, not on the database. Only for strategies where an
 * outcome lost to a crash is harmless: the item is still `pending`, and the rerun sends it with
 * the same idempotency key, or looks it up first. (mark-before-send writes every change at
 * once: an item left `sending` goes to review.)
 */
export class LedgerOutcomeWriter {
  readonly #q: Queryable;
  #buffer: [number, Change][] = [];
  #writing: Promise<void> = Promise.resolve();

  constructor(q: Queryable) {
    this.#q = q;
  }

  /** Queues one outcome; writes a batch once enough are queued. */
  add(id: number, change: Change): Promise<void> {
    this.#buffer.push([id, change]);
    return this.#buffer.length >= FLUSH_ITEMS ? this.flush() : Promise.resolve();
  }

  /** Writes every queued outcome; resolves when they are committed. */
  flush(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    this.#writing = this.#writing.then(async () => {
      if (batch.length === 0) return;
      await this.#q.knex.transaction(async (trx) => {
        for (const [id, change] of batch) await updateLedgerItem({ knex: trx, adapter: this.#q.adapter }, id, change);
      });
    });
    return this.#writing;
  }
}
