import type { TargetSnapshot } from './read-target-snapshot.ts';

/** What the clean run established: what every crash-and-rerun must end with. */
export interface ProveReference {
  readonly snapshot: TargetSnapshot;
  /** Remote records of the clean run, across destinations. */
  readonly records: number;
  /** POST requests of the clean run: the range the random kill points are drawn from. */
  readonly posts: number;
  /** Records the clean run staged (its summary's `counts.stage.records`): sizes the staging batches of the kill at `mid-stage`. */
  readonly stagedRecords: number;
}
