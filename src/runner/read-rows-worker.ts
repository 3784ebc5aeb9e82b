/**
 * The entry of a thread that reads a run's source (see `readRowsInWorker`, which starts it, and
 * `read-rows-messages.ts` for the protocol). It loads the pipeline's module itself, as the run's
 * thread did (a row schema is code, which cannot be sent), reads with the kind's own `read`, and
 * sends what the read did in source order: validated rows, quarantined rows and the calls on the
 * run's `UnchangedFileCheck`, in batches, never more than `BATCHES_IN_FLIGHT` ahead.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadPipeline } from '../pipeline/load-pipeline.ts';
import { cloneProblem } from './clone-problem.ts';
import { BATCH_ITEMS, BATCHES_IN_FLIGHT, type FromReader, type ReadItem, type ReadRowsWorkerData, type ToReader } from './read-rows-messages.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import { serializeThreadError } from './thread-error.ts';
import type { QuarantinedRow } from '../source/quarantined-row.ts';
import type { UnchangedFileCalls } from '../source/unchanged-file-check.ts';

/** Thrown out of the read when the run's thread asked it to stop: the read's own `finally` closes the file. */
class StopRequested extends Error {}

/** Thrown out of the read at a row whose value would not arrive as itself (see `cloneProblem`). */
class NotCloneable extends Error {}

const port = parentPort!;
const data = workerData as ReadRowsWorkerData;
const post = (message: FromReader): void => port.postMessage(message);

let credits = BATCHES_IN_FLIGHT;
let stopRequested = false;
let wake: (() => void) | undefined;
port.on('message', (message: ToReader) => {
  if (message.type === 'ack') credits += 1;
  else stopRequested = true;
  wake?.();
});

let batch: ReadItem[] = [];

/** Adds one item; sends the batch once it is full, waiting first while the run's thread has not taken enough of the earlier ones. */
async function add(item: ReadItem): Promise<void> {
  if (stopRequested) throw new StopRequested();
  batch.push(item);
  if (batch.length < BATCH_ITEMS) return;
  while (credits === 0 && !stopRequested) await new Promise<void>((resolve) => (wake = resolve));
  wake = undefined;
  if (stopRequested) throw new StopRequested();
  credits -= 1;
  const full = batch;
  batch = [];
  post({ type: 'batch', items: full });
}

/** Every row is added before the next one is read: `add` waits there, which holds the read back. */
async function read(): Promise<void> {
  const pipeline = await loadPipeline(data.origin.projectDir, data.origin.name);
  const kind = sourceKindOf(pipeline.source);
  if (!kind.readsInWorker) throw new TypeError(`pipelines/${data.origin.name}.ts: its source kind ${kind.name} is not read on a thread of its own (readsInWorker)`);
  // The calls are only recorded here, in their place among the rows (the batch fills a little past
  // BATCH_ITEMS for them): the run's thread makes them on its own check, and a refusal there ends
  // the read at the same point.
  const unchanged: UnchangedFileCalls | undefined = data.checksUnchanged
    ? { opened: (file, version) => void batch.push({ opened: { file, version } }), readToEnd: (file, sha256) => void batch.push({ readToEnd: { file, sha256 } }) }
    : undefined;
  const quarantine = (row: QuarantinedRow): Promise<void> => add({ quarantined: row });
  const rows = await kind.read(pipeline.source, data.location, quarantine, { ...data.options, ...(unchanged ? { unchanged } : {}) });
  for await (const row of rows) {
    const problem = cloneProblem(row.value);
    if (problem !== undefined) throw new NotCloneable(problem);
    await add({ row: row.bytes === undefined ? { line: row.line, value: row.value } : { line: row.line, value: row.value, bytes: row.bytes } });
  }
}

try {
  await read();
  post({ type: 'end', items: batch });
} catch (error) {
  if (stopRequested) post({ type: 'stopped' });
  else if (error instanceof NotCloneable) post({ type: 'uncloneable', items: batch, reason: error.message });
  else post({ type: 'failed', items: batch, error: serializeThreadError(error) });
}
// Nothing more to send or to wait for: the thread ends once its messages are out.
port.unref();
