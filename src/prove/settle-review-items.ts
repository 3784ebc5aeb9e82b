import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { selectItemsNeedingOperator } from '../ledger/ledger-reports.ts';
import { markReviewItemPosted, retryReviewItem } from '../post/resolve-review-item.ts';
import type { DestinationStandIns } from './destination-stand-ins.ts';

/** What {@link settleReviewItems} did. */
export interface SettledItems {
  /** Items found at the destination and marked posted (`idem review --mark-posted`). */
  readonly markedPosted: number;
  /** Items not found there and put back to be sent (`idem review --retry`): a rerun must follow. */
  readonly retried: number;
  /** Items that failed terminally: an operator would have to fix a cause, prove cannot. */
  readonly failed: number;
}

/**
 * Does what `idem review` tells an operator to do for items in `review` after a crash under
 * mark-before-send: look the reference up at the destination (here: the stand-in), then mark the
 * item posted with the record found (of the item's version, where records carry a `version`), or
 * retry it when there is none. Uses the same functions as
 * `idem review --mark-posted` / `--retry`.
 */
export async function settleReviewItems(db: Database, pipeline: PipelineDefinition, standIns: DestinationStandIns): Promise<SettledItems> {
  let markedPosted = 0;
  let retried = 0;
  let failed = 0;
  for (const item of await selectItemsNeedingOperator(db, { jobName: pipeline.name })) {
    if (item.status !== 'review') {
      failed += 1;
      continue;
    }
    const definition = pipeline.destinations.find((d) => d.name === item.destination)!;
    const ref = { jobName: pipeline.name, reference: item.sourceReference, destination: item.destination, nowIso: new Date().toISOString() };
    // The stand-in's record holds this item's content when it carries its version, or carries none
    // (a pipeline that does not send it): an update of an older record that was not applied is retried.
    const record = standIns.recordsFor(item.destination, item.sourceReference).find((r) => {
      const version = (r as { version?: unknown } | null)?.version;
      return version === undefined || version === item.version;
    });
    if (record) {
      const row = { sourceSystem: item.sourceSystem, sourceReference: item.sourceReference, version: item.version, values: {}, rawJson: {} };
      await markReviewItemPosted(db, { ...ref, remoteReference: definition.remoteReference(record, row) });
      markedPosted += 1;
    } else {
      await retryReviewItem(db, ref);
      retried += 1;
    }
  }
  return { markedPosted, retried, failed };
}
