import type { SourceRow } from './source-row.ts';

const REREADABLE = Symbol('idem.rereadableRows');

/**
 * Marks a source's rows as ones the caller can read again from the start (a file, where an
 * API's pages cannot be asked for twice): `groupRows` over the whole source may then first
 * assume the rows come grouped by key and skip its sort, throwing `SourceNotGroupedError` on the
 * first key that comes back, for the caller to read the source again without this mark.
 * @returns `rows`, marked.
 */
export function rereadableRows<Row>(rows: AsyncIterable<SourceRow<Row>>): AsyncIterable<SourceRow<Row>> {
  return Object.assign(rows, { [REREADABLE]: true });
}

/** Whether `rows` were marked by {@link rereadableRows}. */
export function isRereadableRows(rows: AsyncIterable<unknown>): boolean {
  return (rows as { [REREADABLE]?: boolean })[REREADABLE] === true;
}
