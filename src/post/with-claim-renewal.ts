import type { Logger } from 'pino';
import type { Queryable } from '../db/queryable.ts';
import { renewClaims } from '../ledger/ledger-claims.ts';
import type { HeldClaims } from './held-claims.ts';

/** What {@link withClaimRenewal} renews, and how. */
export interface ClaimRenewalOptions {
  readonly db: Queryable;
  /** The worker whose claims are renewed (`PostWorker.name`). */
  readonly worker: string;
  /** How long a claim lives, in ms: each renewal extends the claims to the database's now + this. */
  readonly claimTtlMs: number;
  /** The process's own view of its claims, told of every successful renewal (see `ClaimLease.renewed`). */
  readonly held: HeldClaims;
  readonly log: Logger;
  /**
   * Runs each renewal in turn with the ledger writes queued meanwhile (`LedgerOutcomeWriter.serialize`):
   * beside a batch's write the renewal could deadlock.
   */
  readonly serialize: <T>(task: () => Promise<T>) => Promise<T>;
}

/**
 * Runs `work` while renewing every live claim the worker holds, every third of `claimTtlMs` (at
 * least every 10 ms), so the claims of items it is still sending never lapse. A renewal that
 * fails is logged at warn; the next one tries again. A claim that lapsed anyway (the process was
 * stopped, or its renewals failed for two thirds of the time to live) is not renewed: it is lost.
 * @returns what `work` returns. @throws what `work` throws.
 */
export async function withClaimRenewal<T>(options: ClaimRenewalOptions, work: () => Promise<T>): Promise<T> {
  const renew = (): void => {
    options
      .serialize(async () => {
        const sentAt = performance.now();
        await renewClaims(options.db, { worker: options.worker, ttlMs: options.claimTtlMs });
        options.held.renewed(sentAt, performance.now(), options.claimTtlMs);
      })
      .catch((error: Error) => options.log.warn({ err: error }, 'claims not renewed'));
  };
  const timer = setInterval(renew, Math.max(10, Math.floor(options.claimTtlMs / 3)));
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
