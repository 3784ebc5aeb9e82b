/** One line of the `idem prove` table. */
export interface ProveCheck {
  /** What was tried, e.g. `kill at mid-upsert, rerun` or `two runs at once`. */
  readonly name: string;
  /** `skip`: the check does not apply to this pipeline (it never fails a proof). */
  readonly result: 'pass' | 'fail' | 'skip';
  /** The counts behind the result, e.g. `rows 143 = 143, remote 143 once, attempts 2`. */
  readonly counts: string;
  /** Wall time of the check, in ms. */
  readonly ms: number;
}

/** What a check found, before it is named and timed. */
export type ProveCheckOutcome = Omit<ProveCheck, 'name' | 'ms'>;
