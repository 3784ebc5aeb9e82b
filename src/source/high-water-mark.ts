import { DateTime } from 'luxon';
import type { IncrementalCursor } from './source-kind.ts';

/** An ISO 8601 date with a time that ends with its offset (luxon parses it; a bare date or local time has none). */
const WITH_OFFSET = /T\d{2}:\d{2}.*(Z|[+-]\d{2}(:?\d{2})?)$/;

/**
 * The greatest cursor seen among a run's items (see `IncrementalCursor`), starting from the
 * mark the run read from. Kept as the item gave it, so it is sent back in the API's own format.
 */
export class HighWaterMark {
  readonly #type: IncrementalCursor['type'];
  #value: string | undefined;
  #order: bigint | number | undefined;

  /**
   * @param from - the mark the run reads from (undefined: none, a full read).
   * @throws TypeError when `from` is not a cursor of this type (the pipeline's cursor changed).
   */
  constructor(type: IncrementalCursor['type'], from: string | undefined) {
    this.#type = type;
    if (from !== undefined) this.see(from, 'the mark in source_marks (a run with --force reads everything and replaces it)');
  }

  /** The greatest cursor seen (or the starting mark), undefined when none. */
  get value(): string | undefined {
    return this.#value;
  }

  /**
   * Takes one item's cursor into account.
   * @param what - names the item in an error, for example `item 17`.
   * @throws TypeError naming `what` and the value when it is not a cursor of this type.
   */
  see(cursor: unknown, what: string): void {
    const order = this.#orderOf(cursor, what);
    if (this.#order === undefined || order > this.#order) {
      this.#order = order;
      this.#value = String(cursor);
    }
  }

  #orderOf(cursor: unknown, what: string): bigint | number {
    if (this.#type === 'integer') {
      if ((typeof cursor === 'number' && Number.isSafeInteger(cursor)) || (typeof cursor === 'string' && /^-?\d{1,100}$/.test(cursor))) return BigInt(cursor);
      throw new TypeError(`${what}: the incremental cursor must be an integer (got ${JSON.stringify(cursor)})`);
    }
    const instant = typeof cursor === 'string' && WITH_OFFSET.test(cursor) ? DateTime.fromISO(cursor, { setZone: true }) : undefined;
    if (instant?.isValid) return instant.toMillis();
    throw new TypeError(`${what}: the incremental cursor must be an ISO 8601 date and time with its offset, such as 2026-12-01T09:00:00Z (got ${JSON.stringify(cursor)})`);
  }
}
