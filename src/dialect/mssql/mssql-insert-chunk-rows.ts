/** SQL Server's limit of parameters per request. */
export const MSSQL_MAX_PARAMETERS = 2100;
/** SQL Server's limit of rows in one `VALUES` list. */
export const MSSQL_MAX_VALUES_ROWS = 1000;

/**
 * Rows per multi-row INSERT on SQL Server, where each value is one bound parameter:
 * `min(1000, floor(2099 / columns))`. 2099 is prime, so for every column count below it a
 * statement carries at most 2098 values: the two parameters `sp_executesql` takes itself
 * (the statement and its parameter list) still fit under the 2100 of the request.
 *
 * @throws RangeError for fewer than 1 or more than 2098 columns (one row would not fit).
 * @example mssqlInsertChunkRows(20) // 104
 */
export function mssqlInsertChunkRows(columnCount: number): number {
  if (!Number.isInteger(columnCount) || columnCount < 1) throw new RangeError(`column count must be a positive integer (got ${columnCount})`);
  if (columnCount > MSSQL_MAX_PARAMETERS - 2) {
    throw new RangeError(`one row of ${columnCount} columns needs more parameters than SQL Server accepts in one request (${MSSQL_MAX_PARAMETERS}, two of them sp_executesql's own)`);
  }
  return Math.min(MSSQL_MAX_VALUES_ROWS, Math.floor((MSSQL_MAX_PARAMETERS - 1) / columnCount));
}

/** Splits rows into chunks of {@link mssqlInsertChunkRows} rows. */
export function* mssqlInsertChunks<T>(rows: readonly T[], columnCount: number): Generator<T[]> {
  const size = mssqlInsertChunkRows(columnCount);
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
