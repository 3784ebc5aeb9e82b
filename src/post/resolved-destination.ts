import type { HttpSettings } from '../http/http-settings.ts';
import type { DestinationDefinition } from '../destination/destination-definition.ts';
import type { PostStrategyModule } from '../destination/post-strategy-module.ts';

/** A destination with its deployment settings applied (`IDEM_DESTINATIONS`). */
export interface ResolvedDestination {
  readonly definition: DestinationDefinition;
  readonly name: string;
  /** Base URL as deployed (`IDEM_DESTINATIONS`); request paths are joined to it by `joinUrl`. */
  readonly url: string;
  /** The strategy in force (`IDEM_DESTINATIONS` may override the definition's). */
  readonly strategy: PostStrategyModule;
  /** Extra request headers (for example `authorization`); redacted from logs. */
  readonly headers: Readonly<Record<string, string>>;
  readonly http: HttpSettings;
  /** `DestinationDefinition.settleDelayMs`, or its `IDEM_DESTINATIONS` override, in ms. */
  readonly settleDelayMs: number;
  /**
   * How long after a claim on one of its items ended (lapsed, or was ended by a run that took the
   * lock of a dead one) another process may claim the item, in ms: the longest time a request
   * sent under that claim can still land at the destination. Under a strategy that
   * `waitsOutLateRequests` (check-before-create, whose look-up must not find "absent" while an
   * earlier create can still land): the request's connect and headers timeouts, the timers'
   * resolution, the settle delay and `IDEM_TAKEOVER_GRACE_MS` (see {@link takeoverGraceMs}). 0
   * under the others: a resend under the same idempotency key is answered with the first result,
   * and under mark-before-send an item whose request may be in flight is `sending`, never claimed
   * again.
   */
  readonly takeoverGraceMs: number;
}
