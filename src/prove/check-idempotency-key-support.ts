import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';

/**
 * Whether every destination under the `idempotency-key` strategy stands in for an API that
 * honours idempotency keys. idem's sandbox does; a destination described in
 * `stand-ins/<pipeline>.ts` does unless the module declares `honoursIdempotencyKeys: { <name>:
 * false }`. Against an API without them the stand-in replays nothing, and the strategy cannot
 * hold there: a retry, a rerun or a takeover creates the record again. That is said here, as a
 * failed check naming the destination, instead of the crash checks passing on a replay the API
 * would never do. `skip` when no destination sends idempotency keys.
 */
export async function checkIdempotencyKeySupport(c: ProveCase): Promise<ProveCheckOutcome> {
  const { keyed } = c.standIns;
  if (keyed.length === 0) return { result: 'skip', counts: 'no destination under idempotency-key' };
  const without = keyed.filter((d) => !d.honoured).map((d) => d.destination);
  if (without.length === 0) return { result: 'pass', counts: `${keyed.map((d) => d.destination).join(', ')}: repeated keys answered with the first answer` };
  return {
    result: 'fail',
    counts: `${without.join(', ')}: described without idempotency-key support (stand-ins honoursIdempotencyKeys false), so the idempotency-key strategy cannot hold there: a retry or rerun creates the record again; use check-before-create or mark-before-send`,
  };
}
