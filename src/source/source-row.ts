/** A validated source row with the line it started on (1-based, the header is line 1). */
export interface SourceRow<Row> {
  readonly line: number;
  readonly value: Row;
}
