import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { pipelineOrigin } from '../pipeline/pipeline-origin.ts';
import type { QuarantinedRow } from '../source/quarantined-row.ts';
import { readSourceRows } from '../source/read-source-rows.ts';
import type { ReadSourceOptions, SourceDeclaration } from '../source/source-kind.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import type { SourceRow } from '../source/source-row.ts';
import { readRowsInWorker } from './read-rows-in-worker.ts';

/** Declarations whose rows did not survive the copy from a reading thread once: their later reads (a re-read) stay on the run's thread. */
const ROWS_STAY_ON_THIS_THREAD = new WeakSet<SourceDeclaration>();

/** Where a run's source may be read (see {@link readSourceOnThreads}). */
export interface ReadThreads {
  /** `IDEM_READ_THREADS`: 2 reads on a thread of its own where the kind and the pipeline allow it. */
  readonly threads: 1 | 2;
  /** Told the thread's id when a read starts on a thread of its own. */
  readonly onThread?: (threadId: number) => void;
  /** Told when a read that began on a thread of its own goes on on this one, and why (rows its thread cannot send). */
  readonly onThisThread?: (reason: string) => void;
}

/**
 * The pipeline's source rows as `readSourceRows` gives them, read on a thread of its own
 * (`readRowsInWorker`) when `threads.threads` is 2, the kind `readsInWorker` and the pipeline was
 * loaded from its module (`pipelineOrigin`: the thread loads it again); else on this thread. The
 * same rows, quarantined rows, `onRow` calls and errors, in the same order, either way.
 */
export async function readSourceOnThreads(
  pipeline: PipelineDefinition,
  location: string,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  options: ReadSourceOptions,
  threads: ReadThreads,
): Promise<AsyncIterable<SourceRow<unknown>>> {
  const { source } = pipeline;
  const origin = pipelineOrigin(pipeline);
  const onThisThread = (quarantineHere: (row: QuarantinedRow) => Promise<void>, optionsHere: ReadSourceOptions) => readSourceRows(source, location, quarantineHere, optionsHere);
  if (threads.threads !== 2 || origin === undefined || !sourceKindOf(source).readsInWorker || ROWS_STAY_ON_THIS_THREAD.has(source)) return onThisThread(quarantine, options);
  return readRowsInWorker(origin, location, quarantine, options, {
    onThisThread,
    ...(threads.onThread ? { onThread: threads.onThread } : {}),
    onMainThread: (reason) => {
      ROWS_STAY_ON_THIS_THREAD.add(source);
      threads.onThisThread?.(reason);
    },
  });
}
