/** `delay-seconds = 1*DIGIT` (RFC 9110 §10.2.3). */
const DELAY_SECONDS = /^\d+$/;
/** The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7). */
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Reads a `Retry-After` header (RFC 9110 §10.2.3): either delay-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`, or the obsolete RFC 850 / asctime forms, all UTC).
 *
 * The input is checked against the RFC grammar before `Date.parse` sees it, because `Date.parse`
 * accepts nearly anything (`'12'` parses as a date in 2001).
 *
 * @param value - the header as undici gives it; a repeated header counts only when all its
 *   values agree (Retry-After is a singleton field, RFC 9110 §5.5).
 * @param nowMs - the current time (epoch ms) an HTTP-date is measured from.
 * @returns the wait in ms, never negative (a date in the past gives `0`), or `undefined` when the
 *   header is missing or invalid.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? (new Set(value).size === 1 ? value[0] : undefined) : value)?.trim();
  if (text === undefined) return undefined;
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  const dateMs = parseHttpDate(text);
  return dateMs === undefined ? undefined : Math.max(0, dateMs - nowMs);
}

function parseHttpDate(text: string): number | undefined {
  const utc = ASCTIME_DATE.test(text) ? `${text} GMT` : IMF_FIXDATE.test(text) || RFC850_DATE.test(text) ? text : undefined;
  if (utc === undefined) return undefined;
  const ms = Date.parse(utc);
  return Number.isNaN(ms) ? undefined : ms;
}
