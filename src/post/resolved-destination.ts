import type { HttpSettings } from '../http/http-settings.ts';
import type { DestinationDefinition } from '../destination/destination-definition.ts';
import type { PostStrategy } from '../destination/post-strategy.ts';

/** A destination with its deployment settings applied (`IDEM_DESTINATIONS`). */
export interface ResolvedDestination {
  readonly definition: DestinationDefinition;
  readonly name: string;
  /** Base URL, without a trailing slash. */
  readonly url: string;
  readonly strategy: PostStrategy;
  /** Extra request headers (for example `authorization`); redacted from logs. */
  readonly headers: Readonly<Record<string, string>>;
  readonly http: HttpSettings;
}
