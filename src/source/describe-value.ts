/** Characters of a value that a message quotes, at most. */
const QUOTED_CHARS = 80;

/**
 * A source value as a message quotes it: as JSON (so a NUL byte, a U+FFFD or trailing space
 * shows), cut after 80 characters with its full length, so that a megabyte field cannot make a
 * megabyte message (nor overflow `job_runs.error` or `quarantine.reason`).
 * For example `"United K"`, or `"AAAA…"… (1048577 characters)`.
 */
export function describeValue(value: string): string {
  if (value.length <= QUOTED_CHARS) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, QUOTED_CHARS))}… (${value.length} characters)`;
}
