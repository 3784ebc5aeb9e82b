/** Counts of one destination's post stage in one run (or one worker's share of it). */
export interface PostCounts {
  readonly destination: string;
  readonly strategy: string;
  /**
   * Items whose create or update request went out (at least once) in this attempt. A look-up is
   * not a send: an item whose look-up found it is `found`, not `sent`.
   */
  readonly sent: number;
  /** Items now `posted`: `created` + `updated` + `found` + `deleted` + `unsent`. */
  readonly posted: number;
  /** Posted by a create (`POST`) that was answered. */
  readonly created: number;
  /** Posted by an update (`PUT`, `PATCH`) of the record's remote record that was answered. */
  readonly updated: number;
  /**
   * Posted with nothing more sent: the strategy's look-up (check-before-create) found the record
   * already at the destination, for example a create an earlier attempt or run sent.
   */
  readonly found: number;
  /** Posted by a deletion's request (`DestinationDefinition.delete`) that was answered. */
  readonly deleted: number;
  /** Deletions of records never posted to the destination: posted with nothing sent. */
  readonly unsent: number;
  readonly failed: number;
  readonly review: number;
  readonly superseded: number;
  /** Items whose claim lapsed before a mark-before-send request went out: another process owns them. */
  readonly lost: number;
  /**
   * Outcomes this process got (an answer, a failure) but whose write the ledger refused: the item
   * was no longer under its claim, moved to `review` (the process was stopped past its claim) or
   * taken over, so the ledger keeps what the item became meanwhile.
   */
  readonly refused: number;
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
    created: a.created + b.created,
    updated: a.updated + b.updated,
    found: a.found + b.found,
    deleted: (a.deleted ?? 0) + (b.deleted ?? 0),
    unsent: (a.unsent ?? 0) + (b.unsent ?? 0),
    failed: a.failed + b.failed,
    review: a.review + b.review,
    superseded: a.superseded + b.superseded,
    lost: a.lost + b.lost,
    refused: a.refused + b.refused,
    attempts: a.attempts + b.attempts,
    ms: a.ms + b.ms,
  };
}
