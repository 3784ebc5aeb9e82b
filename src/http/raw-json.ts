import { randomUUID } from 'node:crypto';

/**
 * Where {@link stringifyJson} collects the texts of the {@link RawJson} values it meets while its
 * `JSON.stringify` runs (which is synchronous, so one module-level slot is enough); `undefined`
 * outside it.
 */
let splices: string[] | undefined;

/** A string no JSON value of a caller holds: this process's random mark, then the splice's index. */
const MARK = `idem-raw-json:${randomUUID()}:`;
const MARKED = new RegExp(`"${MARK}(\\d+)"`, 'g');

/**
 * A JSON value held as its JSON text, as the database returned a json column (see `ColumnType`:
 * every dialect stores JSON as the text `JSON.stringify` wrote). {@link stringifyJson}, which
 * writes every request body idem sends, copies the text into the body as it is, so a large value
 * (an invoice's `lines`) is neither parsed from the database's text nor serialised again. Any
 * other `JSON.stringify` sees the parsed value (`toJSON`), so a body holding one serialises the
 * same everywhere.
 *
 * Made by idem only (`PostedRow.rawJson`), from text that idem wrote: its text is never checked.
 */
export class RawJson {
  /** The value's JSON text. */
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  /** The value: the column's canonical value (a json column's is its JSON text parsed). */
  parse(): unknown {
    return JSON.parse(this.text) as unknown;
  }

  /** The parsed value, or a placeholder while {@link stringifyJson} runs. */
  toJSON(): unknown {
    if (splices === undefined) return this.parse();
    splices.push(this.text);
    return `${MARK}${splices.length - 1}`;
  }
}

/**
 * `JSON.stringify(value)`, with every {@link RawJson} in it written as its text. Returns
 * `undefined` where `JSON.stringify` does (`undefined`, a function).
 * @throws what `JSON.stringify` throws (a cycle, a BigInt), and Error when a `toJSON` of the
 *   caller's serialised a `RawJson` inside a string of its own, which cannot be spliced.
 */
export function stringifyJson(value: unknown): string | undefined {
  const texts: string[] = [];
  splices = texts;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } finally {
    splices = undefined;
  }
  if (texts.length === 0 || json === undefined) return json;
  const spliced = json.replace(MARKED, (_, index: string) => texts[Number(index)]!);
  if (spliced.includes(MARK)) throw new Error('a RawJson was serialised inside a string (a toJSON that calls JSON.stringify): its text cannot be spliced');
  return spliced;
}
