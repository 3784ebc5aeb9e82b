import { HttpStatusError } from '../../http/http-status-error.ts';
import { isStripeKeyInFlight } from '../destination-definition.ts';
import type { PostStrategyModule } from '../post-strategy-module.ts';

/**
 * `idempotency-key`: every attempt, retry, rerun and takeover sends the item's same
 * `Idempotency-Key` header, and the destination answers a repeat with the first response. So any
 * transient failure is retried, an unknown outcome included (a timeout, a reset, a gateway's
 * 5xx), and nothing goes to review. An answer saying the key is still in flight
 * (`DestinationDefinition.keyInFlight`, Stripe's 409 by default) is retried too, and stays a
 * transient failure when the retries run out: a rerun retries it. A takeover needs no grace.
 */
export const idempotencyKeyStrategy: PostStrategyModule = {
  name: 'idempotency-key',
  needsLookup: false,
  sendsIdempotencyKey: true,
  marksSending: false,
  waitsOutLateRequests: false,
  startItem({ idempotencyKey, definition }) {
    const keyInFlight = definition.keyInFlight ?? isStripeKeyInFlight;
    /** The last attempt's create met an answer saying its key is still in flight. */
    let lastKeyInFlight = false;
    return {
      headers: { 'idempotency-key': idempotencyKey },
      beforeSend: async () => {
        lastKeyInFlight = false;
        return undefined;
      },
      sendFailed: ({ error }) => {
        if (error instanceof HttpStatusError) lastKeyInFlight = keyInFlight({ status: error.status, body: error.body });
      },
      retries: (failure) => failure.kind === 'transient' || lastKeyInFlight,
      ending: (failure) => ({ status: 'failed', failureKind: lastKeyInFlight ? 'transient' : failure.kind }),
    };
  },
};
