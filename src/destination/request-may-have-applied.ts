import { classifyHttpFailure } from '../http/classify-http-failure.ts';
import { HttpStatusError } from '../http/http-status-error.ts';
import type { DestinationDefinition } from './destination-definition.ts';

/**
 * Whether the destination may have applied a request (a create or an update) that failed with `error`, by what
 * the failure proves (each strategy decides what to do with it, see `ItemPost.sendFailed`):
 * - never sent (connection refused, a connect timeout, a DNS failure, see `classifyHttpFailure`): no;
 * - a terminal error answer (a 4xx other than 408 and 429): no, the destination refused it;
 * - a transient error answer (408, 429, 5xx): no only when the destination's `notApplied` says
 *   so for that answer, else yes (a gateway's 502 or 504 can follow an applied request);
 * - anything else once the request left (a timeout, a reset connection, an answer idem could not
 *   read or use): yes.
 */
export function requestMayHaveApplied(definition: Pick<DestinationDefinition, 'notApplied'>, error: unknown): boolean {
  const failure = classifyHttpFailure(error);
  if (failure.outcome === 'not-sent') return false;
  if (!(error instanceof HttpStatusError)) return true;
  if (failure.kind === 'terminal') return false;
  return !(definition.notApplied?.({ status: error.status, body: error.body }) ?? false);
}
