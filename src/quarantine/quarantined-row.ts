/** A source row that failed validation: where it was, why, and its raw text. */
export interface QuarantinedRow {
  /** The source file (or URL). */
  readonly source: string;
  /** 1-based line where the row starts; the header is line 1. */
  readonly line: number | undefined;
  /** The rule it broke, naming the field, for example `Quantity: expected an integer (got "x")`. */
  readonly reason: string;
  readonly raw: string | undefined;
}
