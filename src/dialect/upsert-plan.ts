/** What one set-based upsert from a staging table into a target table needs. */
export interface UpsertPlan {
  readonly staging: string;
  readonly target: string;
  /** Business column names, in order. */
  readonly columns: readonly string[];
  readonly runKey: string;
  /** The run's timestamp for `created_at` / `updated_at`, already a driver value. */
  readonly now: unknown;
}

/** Row counts of one upsert, taken from the statements themselves. */
export interface UpsertCounts {
  readonly inserted: number;
  readonly updated: number;
}
