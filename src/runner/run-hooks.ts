/** Hooks into a run, for the command line. */
export interface RunHooks {
  /**
   * Called once the run has enqueued everything and its post stage begins (`job_runs.stage` is
   * `post`): `idem run --workers N` starts its `idem work` processes here.
   */
  readonly onPostStage?: (runKey: string) => void;
}
