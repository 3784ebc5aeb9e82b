import type { PipelineOrigin } from '../pipeline/pipeline-origin.ts';
import type { QuarantinedRow } from './quarantined-row.ts';
import { readRowsInWorker } from './read-rows-in-worker.ts';
import type { ReadSourceOptions, SourceDeclaration } from './source-kind.ts';
import { sourceKindOf } from './source-kinds.ts';
import type { SourceRow } from './source-row.ts';

/** Declarations whose rows did not survive the copy from a reading thread once: their later reads stay on the run's thread. */
const ROWS_STAY_ON_THIS_THREAD = new WeakSet<SourceDeclaration>();

async function* observed<Row>(rows: AsyncIterable<SourceRow<Row>>, onRow: (row: SourceRow<unknown>) => void): AsyncGenerator<SourceRow<Row>> {
  for await (const row of rows) {
    onRow(row);
    yield row;
  }
}

/** Where a source may be read besides the calling thread (see {@link readSourceRows}). */
export interface ReadThreads {
  /** `IDEM_READ_THREADS`: 2 reads on a thread of its own where the kind and the pipeline allow it. */
  readonly threads: 1 | 2;
  /** Where the pipeline was loaded from (`pipelineOrigin`): undefined for one made in memory, which this thread reads. */
  readonly origin: PipelineOrigin | undefined;
  /** Told the thread's id when a read starts on a thread of its own. */
  readonly onThread?: (threadId: number) => void;
  /** Told when a read that began on a thread of its own goes on on this one, and why (rows its thread cannot send). */
  readonly onThisThread?: (reason: string) => void;
}

/**
 * Streams a source's validated rows from its location (a file path, a URL) through its kind's
 * `read`, sending rejected rows to `quarantine`; `options.onRow` sees each row before it is
 * yielded, whether or not the kind calls it itself (`observesRows`). With `threads.threads` 2,
 * a kind that `readsInWorker` of a pipeline loaded from its module is read on a thread of its
 * own (`readRowsInWorker`): the same rows, quarantined rows and errors, in the same order.
 * @throws SourceError when the source cannot be read.
 */
export async function readSourceRows<Row>(
  source: SourceDeclaration<Row>,
  location: string,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  options: ReadSourceOptions = {},
  threads?: ReadThreads,
): Promise<AsyncIterable<SourceRow<Row>>> {
  const kind = sourceKindOf(source);
  const onThisThread = async (quarantineHere: (row: QuarantinedRow) => Promise<void>, optionsHere: ReadSourceOptions): Promise<AsyncIterable<SourceRow<Row>>> => {
    const rows = (await kind.read(source, location, quarantineHere, optionsHere)) as AsyncIterable<SourceRow<Row>>;
    return optionsHere.onRow && !kind.observesRows ? observed(rows, optionsHere.onRow) : rows;
  };
  const origin = threads?.origin;
  if (threads?.threads !== 2 || origin === undefined || !kind.readsInWorker || ROWS_STAY_ON_THIS_THREAD.has(source)) return onThisThread(quarantine, options);
  return readRowsInWorker(origin, location, quarantine, options, {
    onThisThread,
    ...(threads.onThread ? { onThread: threads.onThread } : {}),
    onMainThread: (reason) => {
      ROWS_STAY_ON_THIS_THREAD.add(source);
      threads.onThisThread?.(reason);
    },
  }) as AsyncIterable<SourceRow<Row>>;
}
