import { PipelineError } from '../errors/pipeline-error.ts';

/**
 * The cursor `incremental.cursor` gives for one validated row.
 * @param what - names the item in an error, for example `https://…/products: item 17`.
 * @throws PipelineError (exit 2) when the cursor function throws or returns `undefined`, naming
 *   the row's keys (a short-form row is keyed by column names, not by the API's field names).
 */
export function cursorOfRow<Row>(incremental: { readonly cursor: (row: Row) => unknown }, row: Row, what: string): unknown {
  let cursor: unknown;
  let failure: string | undefined;
  try {
    cursor = incremental.cursor(row);
  } catch (error) {
    failure = `threw ${(error as Error).message}`;
  }
  if (failure === undefined && cursor !== undefined) return cursor;
  const keys = row !== null && typeof row === 'object' ? Object.keys(row).map((key) => JSON.stringify(key)).join(', ') : `none (the row is ${JSON.stringify(row)})`;
  throw new PipelineError(`${what}: the pipeline's incremental.cursor(row) ${failure ?? 'returned undefined'}; the row it receives is the validated row, whose keys are ${keys} (a row derived from the columns is keyed by column names)`);
}
