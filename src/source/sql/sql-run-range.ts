import type { Knex } from 'knex';
import { businessDateRange } from '../../runs/business-date-range.ts';

/**
 * What a `sqlSource` query is given for a run of a business date: the half-open range of
 * instants `[start, end)` from the start of that date to the start of the next, in the
 * pipeline's time zone. A day on which the clocks change has 23 or 25 hours, and every instant
 * belongs to exactly one business date: filter with `>= start` and `< end`, never `BETWEEN`.
 */
export interface SqlRunRange {
  /** The run's business date, `YYYY-MM-DD` in the pipeline's time zone. */
  readonly businessDate: string;
  /**
   * Where the date starts, as the source database binds an instant (the form idem stores an
   * `instant` column in there: a `Date` for PostgreSQL, MySQL/MariaDB (UTC) and SQL Server, ISO
   * 8601 text in UTC with milliseconds for SQLite). Give it to knex as a binding.
   */
  readonly start: Knex.Value;
  /** Where the next date starts (excluded), bound as {@link SqlRunRange.start}. */
  readonly end: Knex.Value;
  /** {@link SqlRunRange.start} as ISO 8601 text in UTC with milliseconds, for messages. */
  readonly startsAt: string;
  /** {@link SqlRunRange.end} as ISO 8601 text in UTC with milliseconds, for messages. */
  readonly endsAt: string;
}

/**
 * The instants where `businessDate` starts and where the next date starts in `timeZone` (an IANA
 * zone), as ISO 8601 text in UTC with milliseconds: `2026-03-29` in `Europe/London` is
 * `[2026-03-29T00:00:00.000Z, 2026-03-29T23:00:00.000Z)`, 23 hours (`businessDateRange`, the
 * range a derived table's rebuild uses too).
 */
export function businessDateInstants(businessDate: string, timeZone: string): { readonly startsAt: string; readonly endsAt: string } {
  const { start, end } = businessDateRange(businessDate, timeZone);
  return { startsAt: start, endsAt: end };
}
