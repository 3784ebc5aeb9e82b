/** Counts of one destination's post stage in one run (or one worker's share of it). */
export interface PostCounts {
  readonly destination: string;
  readonly strategy: string;
  /** Items whose request (or look-up) went out in this attempt: at least one request was made. */
  readonly sent: number;
  readonly posted: number;
  /** check-before-create: already at the destination, nothing created. */
  readonly found: number;
  readonly failed: number;
  readonly review: number;
  readonly superseded: number;
  /** Items whose claim lapsed before a mark-before-send request went out: another process owns them. */
  readonly lost: number;
  /** Attempts made (a check-before-create attempt is a look-up plus, when absent, a create). */
  readonly attempts: number;
  readonly ms: number;
}

/** Adds two post counts of the same destination (for example two passes of one process). */
export function addPostCounts(a: PostCounts, b: PostCounts): PostCounts {
  return {
    destination: a.destination,
    strategy: a.strategy,
    sent: a.sent + b.sent,
    posted: a.posted + b.posted,
    found: a.found + b.found,
    failed: a.failed + b.failed,
    review: a.review + b.review,
    superseded: a.superseded + b.superseded,
    lost: a.lost + b.lost,
    attempts: a.attempts + b.attempts,
    ms: a.ms + b.ms,
  };
}
