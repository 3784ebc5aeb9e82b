import { createHash } from 'node:crypto';

/**
 * The idempotency key of one content version of one record at one destination: derived from
 * the pipeline, the business key and the content version only, so attempt 1, every retry and a
 * rerun after a restart send the same key, and a changed record gets a new one. Never random,
 * never from a timestamp. 45 characters (Stripe allows up to 255).
 */
export function idempotencyKey(pipeline: string, sourceSystem: string, sourceReference: string, version: string): string {
  return `idem-${createHash('sha256').update([pipeline, sourceSystem, sourceReference, version].join('\n')).digest('hex').slice(0, 40)}`;
}
