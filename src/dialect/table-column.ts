/**
 * One column of a live table, as the database reports it: `type` is the adapter's normalised
 * type name (lowercase, `numeric(10,8)`, `varchar(200)`), the same text its `columnTypeName`
 * gives for the column spec it would create, so the two compare as strings.
 */
export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
  /** Whether the column is part of the table's primary key. */
  readonly primaryKey: boolean;
}
