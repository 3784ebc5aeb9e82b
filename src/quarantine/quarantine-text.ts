/**
 * Characters of a quarantine row's `raw` and `reason` kept, at most. A record may be as long as
 * its source's `maxRecordBytes` (1 MiB by default), and MySQL's and MariaDB's `TEXT` holds 65,535
 * bytes: 8,192 characters are at most 32 KiB of UTF-8, plenty to see what is wrong.
 */
export const QUARANTINE_TEXT_MAX_CHARS = 8192;

/** The marker after a cut text, with the text's full length: `… [cut by idem: 1048577 characters in all]`. */
const CUT_MARKER = /… \[cut by idem: \d+ characters in all\]$/;

/**
 * `text` as the quarantine stores it: whole when it has at most {@link QUARANTINE_TEXT_MAX_CHARS}
 * characters, else its first ones (never half a surrogate pair) and a marker with its length.
 */
export function boundQuarantineText(text: string): string {
  if (text.length <= QUARANTINE_TEXT_MAX_CHARS) return text;
  const high = text.charCodeAt(QUARANTINE_TEXT_MAX_CHARS - 1);
  const keep = high >= 0xd800 && high <= 0xdbff ? QUARANTINE_TEXT_MAX_CHARS - 1 : QUARANTINE_TEXT_MAX_CHARS;
  return `${text.slice(0, keep)}… [cut by idem: ${text.length} characters in all]`;
}

/** Whether the quarantine cut `text` (see {@link boundQuarantineText}): its end is not the record's. */
export function isCutQuarantineText(text: string): boolean {
  return text.length > QUARANTINE_TEXT_MAX_CHARS && CUT_MARKER.test(text);
}
