import { DateTime } from 'luxon';

/**
 * The instants a business date starts and ends in an IANA time zone, as canonical ISO UTC text
 * with ms: the half-open range `[start, end)`, 23 or 25 hours long on a day the clocks change
 * (luxon's zone rules, never the server's zone; a date whose midnight does not exist starts at
 * the first instant that does, and so does the next date, which ends this one).
 */
export function businessDateRange(date: string, timeZone: string): { readonly start: string; readonly end: string } {
  const start = DateTime.fromISO(date, { zone: timeZone }).startOf('day');
  return { start: start.toUTC().toISO()!, end: start.plus({ days: 1 }).startOf('day').toUTC().toISO()! };
}

/** The business date (`YYYY-MM-DD`) an instant (ISO text) or a date falls on in an IANA time zone. */
export function businessDateOf(value: string, timeZone: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : DateTime.fromISO(value, { zone: 'utc' }).setZone(timeZone).toISODate()!;
}
