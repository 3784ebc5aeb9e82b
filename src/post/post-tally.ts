import type { PostCounts } from './post-counts.ts';
import type { PostItemOutcome } from './post-item.ts';

type Tally = { -readonly [K in Exclude<keyof PostCounts, 'destination' | 'strategy' | 'ms'>]: number };

/**
 * The running counts of one destination's pass (see `PostCounts`), each counted once, when it
 * happens: an item is `sent` when its first create or update request goes out, and counted by
 * how it ended.
 */
export class PostTally {
  readonly #counts: Tally = { sent: 0, posted: 0, created: 0, updated: 0, found: 0, deleted: 0, unsent: 0, failed: 0, review: 0, superseded: 0, lost: 0, refused: 0, attempts: 0 };
  #finished = 0;

  /** An item's first create or update request is going out (a look-up is no send). */
  sent(): void {
    this.#counts.sent += 1;
  }

  /** An item's record changed again before it was sent: it is `superseded`, not sent. */
  superseded(): void {
    this.#counts.superseded += 1;
  }

  /** An item's claim lapsed before a mark-before-send request: another process owns it. */
  lost(): void {
    this.#counts.lost += 1;
  }

  /** Outcomes the ledger refused: the items were no longer under this process's claim. */
  refused(items: number): void {
    this.#counts.refused += items;
  }

  /** Items left `sending` by a dead process, moved to `review`. */
  interrupted(items: number): void {
    this.#counts.review += items;
  }

  /** How an item's post ended. */
  finished(outcome: PostItemOutcome): void {
    this.#finished += 1;
    this.#counts.attempts += outcome.attempts;
    this.#counts[outcome.status] += 1;
    if (outcome.postedBy) this.#counts[outcome.postedBy] += 1;
  }

  /** Items whose post ended so far (posted, failed or in review): the progress shown. */
  get finishedItems(): number {
    return this.#finished;
  }

  /** Whether the pass did nothing at all: no item finished, superseded, moved to review or lost. */
  get idle(): boolean {
    const c = this.#counts;
    return this.#finished + c.sent + c.superseded + c.review + c.lost + c.refused === 0;
  }

  /** The counts so far, as one destination's {@link PostCounts}. */
  counts(destination: string, strategy: string, ms: number): PostCounts {
    return { destination, strategy, ...this.#counts, ms };
  }
}
