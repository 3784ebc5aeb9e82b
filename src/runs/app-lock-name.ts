/** The app lock's name for a pipeline: one run per pipeline at a time, whatever its run key. */
export function appLockName(pipelineName: string): string {
  return `idem:${pipelineName}`;
}
