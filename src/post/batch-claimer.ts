import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { claimLedgerItems } from '../ledger/ledger-claims.ts';
import type { LedgerItem } from '../ledger/ledger-item.ts';
import { lastPostedReferences } from '../ledger/last-posted-references.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { ClaimLease } from './claim-lease.ts';
import type { HeldClaims } from './held-claims.ts';
import type { PostWorker } from './post-worker.ts';
import { readTargetRows, type TargetRow } from './read-posted-rows.ts';

/**
 * Items claimed per claim: enough that claiming is a small share of the work, few enough that
 * workers sharing a run split it finely. Scales with the destination's concurrency.
 */
export function claimBatchSize(concurrency: number): number {
  return Math.min(500, Math.max(16, concurrency * 8));
}

/** A claimed ledger item with the target row it posts (`undefined`: its version is superseded), and its claim. */
export interface ClaimedItem {
  readonly item: LedgerItem;
  readonly row: TargetRow | undefined;
  /** The remote reference of the record's last posted version (see `lastPostedReferences`), if any. */
  readonly remoteReference: string | undefined;
  readonly lease: ClaimLease;
}

/** What a {@link BatchClaimer} claims, for whom, and how. */
export interface BatchClaimerOptions {
  readonly db: Database;
  readonly pipeline: PipelineDefinition;
  /** The run key's items at one destination. */
  readonly scope: { readonly jobName: string; readonly runKey: string; readonly destination: string };
  readonly worker: PostWorker;
  /** The destination's concurrency: sizes the batches (see {@link claimBatchSize}) and when the next is claimed. */
  readonly concurrency: number;
  /** How long a claim lives, in ms (by the database's clock), unless renewed. */
  readonly claimTtlMs: number;
  /** The destination's takeover grace, in ms (see `ResolvedDestination.takeoverGraceMs`). */
  readonly graceMs: number;
  /** Where each new claim is registered for renewal. */
  readonly held: HeldClaims;
  /** Runs before every claim, once the worker has proved it may post. */
  readonly beforeClaim?: () => Promise<void>;
  /** Aborted on a polite stop: no item is handed out, and no batch claimed, after it. @defaultValue none */
  readonly stop?: AbortSignal;
}

/**
 * The claim loop of one destination's pass: claims batches of the run's `pending` ledger items
 * (see `claimLedgerItems`) for one worker, and hands them out one at a time, with their target
 * rows, until a claim finds nothing. Every claim first proves the worker may post
 * (`PostWorker.assertMayPost`).
 *
 * The next batch is claimed while the current one is still being sent, once half of it is handed
 * out: a claim and its rows take a few round trips, longer on a loaded database than
 * `concurrency` items take to send, so the sending slots never drain between batches.
 */
export class BatchClaimer {
  readonly #options: BatchClaimerOptions;
  readonly #limit: number;
  /**
   * Claims go on after the last id claimed; once that finds nothing, one more from the start
   * picks up what lapsed claims or requeues freed behind it.
   */
  #afterId = 0;

  constructor(options: BatchClaimerOptions) {
    this.#options = options;
    this.#limit = claimBatchSize(options.concurrency);
  }

  /**
   * The claimed items, in claim order; ends when a claim finds nothing, or at a polite stop (once
   * a claim under way has ended: what it and the batch at hand claimed stays claimed, for
   * `releaseUnsentClaims`). @throws what a claim throws.
   */
  async *items(): AsyncGenerator<ClaimedItem> {
    const { stop } = this.#options;
    const prefetchAt = Math.max(this.#options.concurrency, Math.floor(this.#limit / 2));
    if (stop?.aborted) return;
    let next: Promise<ClaimedItem[]> | undefined = this.#claimBatch();
    let buffer: ClaimedItem[] = [];
    for (;;) {
      if (buffer.length === 0) {
        buffer = await next!;
        next = undefined;
        if (buffer.length === 0) return;
      }
      if (stop?.aborted) {
        await next?.catch(() => undefined);
        return;
      }
      if (next === undefined && buffer.length <= prefetchAt) {
        next = this.#claimBatch();
        // Handled where it is awaited; this only keeps an early failure from being "unhandled".
        next.catch(() => undefined);
      }
      yield buffer.shift()!;
    }
  }

  async #claimBatch(): Promise<ClaimedItem[]> {
    const { db, pipeline, scope, worker, claimTtlMs, graceMs } = this.#options;
    await worker.assertMayPost();
    await this.#options.beforeClaim?.();
    const claim = async (afterId: number): Promise<{ items: LedgerItem[]; lease: ClaimLease }> => {
      const token = randomUUID();
      const sentAt = performance.now();
      const items = await claimLedgerItems(db, { ...scope, worker: worker.name, token, limit: this.#limit, ttlMs: claimTtlMs, graceMs, afterId });
      return { items, lease: new ClaimLease(token, sentAt + claimTtlMs, items.length) };
    };
    let claimed = await claim(this.#afterId);
    if (claimed.items.length === 0 && this.#afterId > 0) claimed = await claim(0);
    const { items, lease } = claimed;
    this.#afterId = items.at(-1)?.id ?? this.#afterId;
    if (items.length > 0) this.#options.held.add(lease);
    const rows = await readTargetRows(db, pipeline, items);
    const references = await lastPostedReferences(db, items);
    return items.map((item) => ({ item, row: rows.get(item.id), remoteReference: references.get(item.id), lease }));
  }
}
