import type { ResolvedConfig } from '../config/resolved-config.ts';
import { UsageError } from '../errors/usage-error.ts';
import { resolveHttpSettings, type HttpSettings } from '../http/http-settings.ts';
import type { DestinationDefinition } from '../destination/destination-definition.ts';
import type { PostStrategyModule } from '../destination/post-strategy-module.ts';
import { postStrategyOf } from '../destination/post-strategy-registry.ts';
import type { ResolvedDestination } from './resolved-destination.ts';

/** `DestinationDefinition.settleDelayMs`'s default, in ms. */
export const DEFAULT_SETTLE_DELAY_MS = 5_000;

/**
 * How late undici's timeouts can fire, in ms: timeouts over 1 s run on its coarse timers, which
 * tick every half second and fire up to a second late (undici lib/util/timers.js).
 */
const TIMER_RESOLUTION_MS = 1_000;

/**
 * The takeover grace of a destination (see `ResolvedDestination.takeoverGraceMs`), in ms: under a
 * strategy that `waitsOutLateRequests` the longest a request may take to be answered or given up
 * (connect and headers timeouts, plus the timers' resolution), the settle delay, and
 * `IDEM_TAKEOVER_GRACE_MS`; 0 under the others.
 */
export function takeoverGraceMs(strategy: PostStrategyModule, http: HttpSettings, settleDelayMs: number, pauseGraceMs: number): number {
  if (!strategy.waitsOutLateRequests) return 0;
  return http.connectTimeoutMs + http.headersTimeoutMs + TIMER_RESOLUTION_MS + settleDelayMs + pauseGraceMs;
}

/**
 * Applies a destination's deployment settings to its definition.
 * @throws UsageError when `IDEM_DESTINATIONS` has no URL for it, or the strategy needs a
 *   `lookup` the definition lacks.
 */
export function resolveDestination(config: ResolvedConfig, definition: DestinationDefinition): ResolvedDestination {
  const settings = config.destinations[definition.name];
  if (!settings) {
    throw new UsageError(
      `destination "${definition.name}" has no URL: set IDEM_DESTINATIONS='{"${definition.name}":{"url":"https://…"}}'`,
    );
  }
  const strategy = postStrategyOf(settings.strategy ?? definition.strategy);
  if (strategy.needsLookup && !definition.lookup) {
    throw new UsageError(`destination "${definition.name}" uses ${strategy.name} but defines no lookup`);
  }
  const http = resolveHttpSettings(definition.http, settings.http);
  const settleDelayMs = settings.settleDelayMs ?? definition.settleDelayMs ?? DEFAULT_SETTLE_DELAY_MS;
  return Object.freeze({
    definition,
    name: definition.name,
    url: settings.url,
    strategy,
    headers: Object.freeze({ ...settings.headers }),
    http,
    settleDelayMs,
    takeoverGraceMs: takeoverGraceMs(strategy, http, settleDelayMs, config.takeoverGraceMs),
  });
}
