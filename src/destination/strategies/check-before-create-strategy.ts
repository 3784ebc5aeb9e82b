import type { PostStrategyModule } from '../post-strategy-module.ts';

/**
 * `check-before-create`: every attempt first looks the record up at the destination by its
 * reference (`DestinationDefinition.lookup`), and sends the create (or update) only when the
 * destination holds no record of this content version; a record found is the item posted, with
 * nothing sent. Any transient failure is retried: after a create that may have been applied (a
 * timeout, a reset, a gateway's 5xx, see `requestMayHaveApplied`) the next look-up first waits
 * the destination's settle delay, so that a request it applies late is found rather than created
 * again. An item that fails after such a create is marked `requestMayLand`. A takeover waits out
 * the requests an earlier claimant may still have in flight (see `takeoverGraceMs`).
 */
export const checkBeforeCreateStrategy: PostStrategyModule = {
  name: 'check-before-create',
  needsLookup: true,
  sendsIdempotencyKey: false,
  marksSending: false,
  waitsOutLateRequests: true,
  startItem({ settleDelayMs }) {
    /** No look-up before this instant (`performance.now()`, ms): an earlier create may still land. */
    let settledAt = 0;
    /** A create of this item failed in a way the destination may have applied. */
    let createMayLand = false;
    return {
      headers: {},
      beforeSend: async (sender) => {
        const wait = settledAt - performance.now();
        if (wait > 0) await sender.sleep(wait);
        return sender.lookUp();
      },
      sendFailed: ({ mayHaveApplied }) => {
        if (!mayHaveApplied) return;
        createMayLand = true;
        settledAt = performance.now() + settleDelayMs;
      },
      retries: (failure) => failure.kind === 'transient',
      ending: (failure) => ({ status: 'failed', failureKind: failure.kind, ...(createMayLand ? { requestMayLand: true as const } : {}) }),
    };
  },
};
