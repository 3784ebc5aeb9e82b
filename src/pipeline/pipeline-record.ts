/**
 * One record a pipeline stages: its business key within the pipeline's source system, the
 * business values (canonical JS values, see `ColumnType`), and where it came from.
 */
export interface PipelineRecord {
  /** The source's own identifier for the record (for example an invoice number). */
  readonly sourceReference: string;
  /** One value per declared business column; `null` only where the column is nullable. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The first source line the record came from (1-based), for error messages. */
  readonly line?: number;
  /**
   * The source says this record was deleted (a tombstone): it is marked deleted in the target and
   * its deletion posted, as a record a full snapshot lacks (see `SourceDeclaration.tombstone`).
   * Its `values` are staged but never written to the target. @defaultValue false
   */
  readonly deleted?: boolean;
}
