import { DateTime } from 'luxon';

/**
 * Distinct wall times remembered per format and zone, at most; the cache is emptied when full. A
 * year of the UCI shop has about 23,000 distinct times, each shared by an invoice's lines.
 */
const MAX_CACHED_TIMES = 100_000;

/** The SQL shape `fromSQL` reads about twice as fast as `fromFormat`, with the same results. */
const SQL_FORMAT = 'yyyy-MM-dd HH:mm:ss';

const parsers = new Map<string, (text: string) => string | null>();

/**
 * A parser of local wall times written in `format` (luxon's tokens, for example
 * `yyyy-MM-dd HH:mm:ss` or `dd/MM/yyyy HH:mm`) in the IANA zone `zone`, to the canonical instant
 * (ISO 8601 UTC with ms, see `ColumnType`). Surrounding whitespace is not data. Returns `null`
 * for text that is not in the format, and for a wall time that does not exist in the zone: a
 * date such as 2011-02-30, an hour such as 24, or a time in the spring DST gap (luxon would move
 * it an hour on). Of an autumn time that occurs twice, luxon takes the second (in London, the
 * GMT one). Each distinct text is parsed once: one parser (and cache) per format and
 * zone, shared by every column and field that asks for it.
 */
export function wallTimeParser(format: string, zone: string): (text: string) => string | null {
  const id = `${zone}\n${format}`;
  let parser = parsers.get(id);
  if (parser !== undefined) return parser;
  const cache = new Map<string, string | null>();
  const parse = (text: string): string | null => {
    const parsed = format === SQL_FORMAT ? DateTime.fromSQL(text, { zone }) : DateTime.fromFormat(text, format, { zone });
    // A time luxon moved (out of the DST gap, or 24:00 to the next day) no longer reads as written.
    return parsed.isValid && parsed.toFormat(format) === text ? parsed.toUTC().toISO() : null;
  };
  parser = (input) => {
    const text = input.trim();
    let instant = cache.get(text);
    if (instant === undefined) {
      instant = parse(text);
      if (cache.size >= MAX_CACHED_TIMES) cache.clear();
      cache.set(text, instant);
    }
    return instant;
  };
  parsers.set(id, parser);
  return parser;
}
