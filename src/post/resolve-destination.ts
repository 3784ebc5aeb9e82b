import type { ResolvedConfig } from '../config/resolved-config.ts';
import { UsageError } from '../errors/usage-error.ts';
import { resolveHttpSettings } from '../http/http-settings.ts';
import type { DestinationDefinition } from '../destination/destination-definition.ts';
import type { ResolvedDestination } from './resolved-destination.ts';

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
  const strategy = settings.strategy ?? definition.strategy;
  if (strategy === 'check-before-create' && !definition.lookup) {
    throw new UsageError(`destination "${definition.name}" uses check-before-create but defines no lookup`);
  }
  const http = resolveHttpSettings(definition.http, settings.http);
  return Object.freeze({
    definition,
    name: definition.name,
    url: settings.url.replace(/\/+$/, ''),
    strategy,
    headers: Object.freeze({ ...settings.headers }),
    http,
  });
}
