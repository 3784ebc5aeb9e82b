// Europe/London wall time → UTC for the floors on servers without time-zone data (MariaDB's
// mysql.time_zone_name is empty here, so CONVERT_TZ(..., 'Europe/London', ...) gives NULL; SQLite
// has no zones at all). The offsets come from luxon, the library the pipeline converts with.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { DateTime } = require('luxon');

/**
 * The UTC offset (minutes) of `zone` for every local hour of the years `fromYear`..`toYear`, as
 * ranges of local wall time: `[{ untilLocal: 'YYYY-MM-DD HH:00:00' | undefined, offsetMinutes }]`,
 * in order; a local time belongs to the first range whose `untilLocal` is later than it. Local
 * times in a spring-forward gap or the repeated autumn hour get luxon's answer for that hour.
 */
export function localOffsetRanges(zone, fromYear, toYear) {
  const ranges = [];
  let current;
  // Every local hour of the years (calendar arithmetic in UTC, so no hour is skipped or repeated).
  for (let t = Date.UTC(fromYear, 0, 1); new Date(t).getUTCFullYear() <= toYear; t += 3_600_000) {
    const d = new Date(t);
    const local = d.toISOString().slice(0, 13).replace('T', ' ') + ':00:00';
    const offset = DateTime.fromObject({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours() }, { zone }).offset;
    if (current?.offsetMinutes !== offset) {
      if (current) current.untilLocal = local;
      current = { untilLocal: undefined, offsetMinutes: offset };
      ranges.push(current);
    }
  }
  return ranges;
}

/**
 * A SQL CASE giving the UTC offset in minutes of a local `YYYY-MM-DD HH:MM:SS` value `expr`
 * (text or datetime; compared as text with ISO ordering). Portable SQL: MariaDB and SQLite.
 */
export function offsetMinutesSql(expr, ranges) {
  const whens = ranges.filter((r) => r.untilLocal).map((r) => `when ${expr} < '${r.untilLocal}' then ${r.offsetMinutes}`);
  return `(case ${whens.join(' ')} else ${ranges.at(-1).offsetMinutes} end)`;
}
