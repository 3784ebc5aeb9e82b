import { DateTime } from 'luxon';
import { UsageError } from '../errors/usage-error.ts';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * luxon's options for checking a `YYYY-MM-DD` value as a calendar date: in UTC, with a locale of
 * its own, so luxon does not ask Intl for the system's (`new Intl.DateTimeFormat()`, ICU's locale
 * set-up: about 20 ms of CPU, which every `--date` run paid, its no-op included). Reading an ISO
 * date does not depend on the locale.
 */
const CALENDAR_DATE = { zone: 'UTC', locale: 'en-US' } as const;

/**
 * Checks a `--date` value: a real calendar date written `YYYY-MM-DD`.
 * @throws UsageError naming the value (`2026-02-30`, `20261001`).
 */
export function parseBusinessDate(value: string, flag = '--date'): string {
  if (!ISO_DATE.test(value) || !DateTime.fromISO(value, CALENDAR_DATE).isValid) {
    throw new UsageError(`${flag} must be a calendar date written YYYY-MM-DD (got "${value}")`);
  }
  return value;
}

/**
 * The business date a `--date` value names: `YYYY-MM-DD` as written, or `today` / `yesterday`
 * resolved in the pipeline's IANA time zone at `now` (never the server's zone). A fire of the
 * nightly schedule at 00:30 Europe/London on the night the clocks change still names the right
 * day: luxon converts the instant into the zone's wall-clock date.
 * @throws UsageError for anything else.
 */
export function resolveBusinessDate(value: string, timeZone: string, now: Date, flag = '--date'): string {
  if (value === 'today' || value === 'yesterday') {
    const today = DateTime.fromJSDate(now, { zone: timeZone }).startOf('day');
    return (value === 'today' ? today : today.minus({ days: 1 })).toISODate()!;
  }
  if (!ISO_DATE.test(value) || !DateTime.fromISO(value, CALENDAR_DATE).isValid) {
    throw new UsageError(`${flag} must be a calendar date written YYYY-MM-DD, today or yesterday (got "${value}")`);
  }
  return value;
}

/**
 * Every business date from `from` to `to`, both included, in order.
 * @throws UsageError when `from` is after `to`.
 */
export function businessDatesBetween(from: string, to: string): string[] {
  if (from > to) throw new UsageError(`--from (${from}) must not be after --to (${to})`);
  const dates: string[] = [];
  for (let d = DateTime.fromISO(from, { zone: 'UTC' }); d.toISODate()! <= to; d = d.plus({ days: 1 })) dates.push(d.toISODate()!);
  return dates;
}
