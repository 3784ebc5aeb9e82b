import type { SourceRow } from './source-row.ts';

/**
 * A source's rows that the caller can read again from the start (a file, where an API's pages
 * cannot be asked for twice). `groupRows` over the whole source then first assumes the rows come
 * grouped by key and skips its sort; at the first key that comes back it stops reading and calls
 * {@link reread}, and the caller reads the source again as plain rows, which `groupRows` sorts.
 *
 * A request to read again is a value the caller checks after the pass, not an error: the pass
 * ends as a short source would, so a bulk load in the caller's transaction is not aborted
 * (PostgreSQL aborts a transaction whose COPY fails), and the caller throws the pass away.
 */
export class RereadableRows<Row> implements AsyncIterable<SourceRow<Row>> {
  readonly #rows: AsyncIterable<SourceRow<Row>>;
  #reason: string | undefined;

  constructor(rows: AsyncIterable<SourceRow<Row>>) {
    this.#rows = rows;
  }

  [Symbol.asyncIterator](): AsyncIterator<SourceRow<Row>> {
    return this.#rows[Symbol.asyncIterator]();
  }

  /** Asks the caller to throw this pass away and read the source again; the first reason stays. */
  reread(reason: string): void {
    this.#reason ??= reason;
  }

  /** Why the pass asked to be read again, or undefined when it did not: its result stands. */
  get rereadReason(): string | undefined {
    return this.#reason;
  }
}
