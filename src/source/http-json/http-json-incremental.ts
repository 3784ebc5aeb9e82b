/**
 * How an HTTP JSON source reads only what changed since the last completed run: each item
 * carries a cursor (an `updated_at` instant, or a change sequence number), and each request sends
 * the high-water mark, the greatest cursor the last completed run read, as a query parameter.
 * The first run (no mark yet) and a `--force` run send none and read everything.
 *
 * What the API must do for no change to be missed:
 * - answer the items whose cursor is at or after the mark (inclusive: an item that shares the
 *   mark's value but was not read is never skipped; the items read again at the boundary upsert
 *   as unchanged, so nothing is written or posted for them);
 * - serve items in ascending cursor order (ties in a stable order), also on the first read, so an
 *   item that changes while a run reads moves behind the reader's position, not before it;
 * - give an item its cursor when its change becomes visible (a database that stamps `updated_at`
 *   at the start of a transaction committed later breaks this: ask the API for a change sequence).
 *
 * @example
 * { param: 'updated_since', cursor: (product) => product.updated_at, type: 'instant' }
 */
export interface HttpJsonIncremental<Row> {
  /** The query parameter the mark is sent in, for example `updated_since`. */
  readonly param: string;
  /**
   * An item's cursor, from its validated row: what the source's `row` schema gives, or, where a
   * pipeline with a `key` derives the row from its columns, an object keyed by the **column
   * names** (and the key field), each holding the column's canonical value. A cursor that
   * returns `undefined` or throws is a mistake in the pipeline: the run exits 2 naming the row's
   * keys.
   */
  readonly cursor: (row: Row) => string | number;
  /**
   * How cursors compare: `instant`, an ISO 8601 date and time with its offset (`Z` or `±hh:mm`),
   * compared as instants (to the millisecond); `integer`, whole numbers (or strings of digits),
   * compared as numbers of any size. The mark is sent as the item gave it.
   */
  readonly type: 'instant' | 'integer';
}

