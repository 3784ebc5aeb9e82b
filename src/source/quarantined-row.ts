/** A source row that failed validation: where it was, why, and its raw text. */
export interface QuarantinedRow {
  /** The source file, or for an HTTP JSON source the URL of the page the item came on. */
  readonly source: string;
  /**
   * 1-based line where the row starts (the header is line 1); for an HTTP JSON source, the
   * item's 1-based index in the whole stream (see `SourceRow.line`).
   */
  readonly line: number | undefined;
  /** The rule it broke, naming the field, for example `Quantity: expected an integer (got "x")`. */
  readonly reason: string;
  /** The row as read: the CSV record's text, or an HTTP item as JSON. */
  readonly raw: string | undefined;
}
