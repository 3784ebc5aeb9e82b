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
}

/** A count and the first few business keys behind it. */
export interface PlanPart {
  readonly count: number;
  readonly first: readonly string[];
}
