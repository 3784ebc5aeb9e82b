/** What a run would do: per target table and per destination. */
export interface RunPlan {
  readonly target: {
    readonly table: string;
    readonly insert: PlanPart;
    readonly update: PlanPart;
    readonly leave: PlanPart;
    /** Records it would mark deleted (a pipeline that deletes records only). */
    readonly delete?: PlanPart;
    /** Why the delete guard would stop the run (exit 3) before writing anything, when it would. */
    readonly held?: string;
  };
  readonly destinations: readonly { readonly destination: string; readonly strategy: string; readonly requests: PlanPart }[];
  /**
   * Per derived table, over the scopes it would be rebuilt for: rows the rebuild would delete and
   * not write again, rows it would write that were not there, rows it would leave identical.
   */
  readonly derived: readonly DerivedPlan[];
}

/** What rebuilding one derived table would do. */
export interface DerivedPlan {
  readonly table: string;
  readonly scopes: readonly string[];
  readonly delete: number;
  readonly insert: number;
  readonly identical: number;
}

/** A count and the first few business keys behind it. */
export interface PlanPart {
  readonly count: number;
  readonly first: readonly string[];
}
