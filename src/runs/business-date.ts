import { DateTime } from 'luxon';
import { UsageError } from '../errors/usage-error.ts';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Checks a `--date` value: a real calendar date written `YYYY-MM-DD`.
 * @throws UsageError naming the value (`2026-02-30`, `20261001`).
 */
export function parseBusinessDate(value: string, flag = '--date'): string {
  if (!ISO_DATE.test(value) || !DateTime.fromISO(value, { zone: 'UTC' }).isValid) {
    throw new UsageError(`${flag} must be a calendar date written YYYY-MM-DD (got "${value}")`);
  }
  return value;
}
