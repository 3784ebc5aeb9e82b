/**
 * A validated source row and where it starts, 1-based: in a CSV file its line (the header is
 * line 1); from an HTTP JSON source the item's index in the whole stream (the first item of the
 * first page is 1), whatever page it came on.
 */
export interface SourceRow<Row> {
  readonly line: number;
  readonly value: Row;
  /** CSV: bytes of the file read so far, for the extract progress bar; absent when unknown. */
  readonly bytes?: number;
}
