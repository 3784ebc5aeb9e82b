import type { ReadSourceOptions } from '../source/source-kind.ts';
import type { FileVersion } from '../source/file-version.ts';
import type { PipelineOrigin } from '../pipeline/pipeline-origin.ts';
import type { QuarantinedRow } from '../source/quarantined-row.ts';
import type { SourceRow } from '../source/source-row.ts';
import type { ThreadError } from './thread-error.ts';

/**
 * The protocol between a run's thread and the thread that reads its source (`readRowsInWorker`,
 * `read-rows-worker.ts`). The reading thread sends what the read did, in the order it did it,
 * in batches of {@link BATCH_ITEMS}; it sends a batch only while fewer than
 * {@link BATCHES_IN_FLIGHT} are unacknowledged, and the run's thread acknowledges each batch as
 * it takes it: the reading thread never runs more than that ahead of staging.
 */

/** Items in one batch: a few hundred rows, so a message's cost is spread, and little is held. */
export const BATCH_ITEMS = 256;
/** Batches the reading thread may have sent that the run's thread has not taken yet. */
export const BATCHES_IN_FLIGHT = 3;

/** What the reading thread is started with (`workerData`): plain data only. */
export interface ReadRowsWorkerData {
  readonly origin: PipelineOrigin;
  readonly location: string;
  readonly options: Pick<ReadSourceOptions, 'settings' | 'since' | 'runKey' | 'context'>;
  /** The run checks the file across its reads: forward `opened` and `readToEnd` (see `UnchangedFileCheck`). */
  readonly checksUnchanged: boolean;
}

/** One thing the read did, in source order. */
export type ReadItem =
  | { readonly row: SourceRow<unknown> }
  | { readonly quarantined: QuarantinedRow }
  | { readonly opened: { readonly file: string; readonly version: FileVersion } }
  | { readonly readToEnd: { readonly file: string; readonly sha256: string } };

/** From the reading thread. */
export type FromReader =
  /** A full batch; more follow. Acknowledge it. */
  | { readonly type: 'batch'; readonly items: readonly ReadItem[] }
  /** The last items: the read ended. */
  | { readonly type: 'end'; readonly items: readonly ReadItem[] }
  /** The last items, then the error the read threw. */
  | { readonly type: 'failed'; readonly items: readonly ReadItem[]; readonly error: ThreadError }
  /** The last items, then a row whose value would not survive the copy to the run's thread (named in `reason`): that thread reads the rest. */
  | { readonly type: 'uncloneable'; readonly items: readonly ReadItem[]; readonly reason: string }
  /** Asked to stop, the read stopped and released the file. */
  | { readonly type: 'stopped' };

/** To the reading thread. */
export type ToReader = { readonly type: 'ack' } | { readonly type: 'stop' };
