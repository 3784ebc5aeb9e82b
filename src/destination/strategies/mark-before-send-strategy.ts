import type { PostStrategyModule } from '../post-strategy-module.ts';

/**
 * `mark-before-send`: every attempt first marks the item `sending` (committed), and the outcome
 * replaces the mark. A create that failed without proof that the destination did nothing (a
 * timeout, a reset, a gateway's 5xx, see `requestMayHaveApplied` and
 * `DestinationDefinition.notApplied`) is never resent blindly: the item goes to `review` for an
 * operator. Only a failure that proves nothing was done is retried. An item left `sending` by a
 * process that died or lost its claim goes to `review` too, never claimed again, so a takeover
 * needs no grace.
 */
export const markBeforeSendStrategy: PostStrategyModule = {
  name: 'mark-before-send',
  needsLookup: false,
  sendsIdempotencyKey: false,
  marksSending: true,
  waitsOutLateRequests: false,
  startItem() {
    /** The last attempt's create failed in a way the destination may have applied. */
    let lastMayHaveApplied = false;
    return {
      headers: {},
      beforeSend: async (sender) => {
        lastMayHaveApplied = false;
        await sender.markSending();
        return undefined;
      },
      sendFailed: ({ mayHaveApplied }) => {
        lastMayHaveApplied = mayHaveApplied;
      },
      retries: (failure) => failure.kind === 'transient' && !lastMayHaveApplied,
      ending: (failure) => (lastMayHaveApplied ? { status: 'review' } : { status: 'failed', failureKind: failure.kind }),
    };
  },
};
