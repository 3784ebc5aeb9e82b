import type { TargetSnapshot } from './read-target-snapshot.ts';

/** What the clean update established (see `checkCleanUpdate`): what every update check must end with. */
export interface UpdateReference {
  /** The target after the changed run: the clean run's rows with one of them changed. */
  readonly snapshot: TargetSnapshot;
  /** The changed row's source reference: the record each destination must have updated once. */
  readonly reference: string;
}
