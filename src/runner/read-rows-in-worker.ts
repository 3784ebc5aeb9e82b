import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SourceError } from '../errors/source-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import type { PipelineOrigin } from '../pipeline/pipeline-origin.ts';
import type { QuarantinedRow } from '../source/quarantined-row.ts';
import type { FromReader, ReadRowsWorkerData, ToReader } from './read-rows-messages.ts';
import type { ReadSourceOptions } from '../source/source-kind.ts';
import type { SourceRow } from '../source/source-row.ts';
import { rebuildThreadError } from './thread-error.ts';

/** How long a read asked to stop may take to release its file before its thread is ended at once, in ms. */
const STOP_WAIT_MS = 2_000;

/** A read on this thread, with its own quarantine and options: what a read whose rows cannot cross goes on with. */
export type ReadOnThisThread = (quarantine: (row: QuarantinedRow) => Promise<void>, options: ReadSourceOptions) => Promise<AsyncIterable<SourceRow<unknown>>>;

/** What the reading thread sent, or that it ended without saying why. */
type Received = FromReader | { readonly type: 'died'; readonly reason: string };

/**
 * The reading thread's entry. Built (dist/, the installed package) it sits beside this module.
 * Run from the source (vitest runs src/*.ts) it is the build's all the same: the pipeline module
 * the thread loads imports `idem`, which Node resolves to the build, and a thread running src/
 * would hold a second idem whose declarations the first does not know.
 */
function workerEntry(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('../../dist/src/runner/read-rows-worker.js', import.meta.url) : new URL('./read-rows-worker.js', import.meta.url);
}

/** The messages of a reading thread, in the order they came, and the thread's end. */
class Inbox {
  readonly #worker: Worker;
  readonly #queue: Received[] = [];
  #wake: (() => void) | undefined;

  constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (message: FromReader) => this.#put(message));
    worker.on('messageerror', (error) => this.#put({ type: 'died', reason: `a message from it could not be read: ${error.message}` }));
    worker.on('error', (error) => this.#put({ type: 'died', reason: error.message }));
    worker.on('exit', (code) => this.#put({ type: 'died', reason: `it exited with code ${code}` }));
  }

  #put(message: Received): void {
    this.#queue.push(message);
    this.#wake?.();
  }

  /**
   * The next message. The thread keeps the process alive only while this waits for it: a read
   * its caller dropped without ending it (no `return()`) cannot hold the process open.
   */
  async next(): Promise<Received> {
    if (this.#queue.length === 0) {
      this.#worker.ref();
      try {
        while (this.#queue.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
      } finally {
        this.#wake = undefined;
        this.#worker.unref();
      }
    }
    return this.#queue.shift()!;
  }

  /** Waits up to `ms` for a message that `last` accepts. */
  async until(last: (message: Received) => boolean, ms: number): Promise<void> {
    const timer = new AbortController();
    const timeout = delay(ms, undefined, { signal: timer.signal }).catch(() => undefined);
    try {
      for (;;) {
        const message = await Promise.race([this.next(), timeout]);
        if (message === undefined || last(message)) return;
      }
    } finally {
      timer.abort();
    }
  }
}

/**
 * Reads a source on a thread of its own (`IDEM_READ_THREADS=2`, a kind that `readsInWorker`):
 * the thread loads the pipeline from `origin` as this one did, parses and validates, and sends
 * batches of what the read did; here each is replayed in order, as a read on this thread would
 * have done it: a quarantined row goes to `quarantine` (awaited), a row to `options.onRow` and
 * then to the caller, the thread's `opened` and `readToEnd` to `options.unchanged`. The thread
 * reads at most a few batches ahead of the caller (`BATCHES_IN_FLIGHT`).
 *
 * A row whose value would not arrive as itself (a class instance the row schema makes: see
 * `cloneProblem`) ends the thread's read there: `onThisThread` reads the source again on this
 * thread, what was already given skipped, after `onMainThread` is told why.
 *
 * When the caller stops early (`return()`: a stop, a failure in staging, a `groupRows` reread),
 * the thread's read is asked to stop, which closes its file, and the thread ends.
 *
 * @throws what the read threw on the reading thread, as the same class with the same message and
 *   fields, once every row before it was given; what `quarantine` and `unchanged` throw here; a
 *   `SourceError` when the thread died (a crash, out of memory) before its read ended.
 */
export async function* readRowsInWorker(
  origin: PipelineOrigin,
  location: string,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  options: ReadSourceOptions,
  fallback: { readonly onThisThread: ReadOnThisThread; readonly onMainThread?: (reason: string) => void; readonly onThread?: (threadId: number) => void },
): AsyncGenerator<SourceRow<unknown>> {
  const entry = workerEntry();
  if (!existsSync(fileURLToPath(entry))) throw new UsageError(`IDEM_READ_THREADS=2: the reading thread's module ${fileURLToPath(entry)} is missing; run npm run build`);
  const data: ReadRowsWorkerData = {
    origin,
    location,
    options: {
      ...(options.settings === undefined ? {} : { settings: options.settings }),
      ...(options.since === undefined ? {} : { since: options.since }),
      ...(options.runKey === undefined ? {} : { runKey: options.runKey }),
      ...(options.context === undefined ? {} : { context: { ...options.context, config: { projectDir: options.context.config.projectDir, sourceDir: options.context.config.sourceDir, sources: options.context.config.sources } } }),
    },
    checksUnchanged: options.unchanged !== undefined,
  };
  const worker = new Worker(entry, { workerData: data, name: `idem read ${origin.name}` });
  const inbox = new Inbox(worker);
  fallback.onThread?.(worker.threadId);
  const send = (message: ToReader): void => worker.postMessage(message);
  let rows = 0;
  let quarantined = 0;
  let ended = false;
  try {
    for (;;) {
      const message = await inbox.next();
      if (message.type === 'died') {
        ended = true;
        throw new SourceError(location, undefined, `the thread reading it (IDEM_READ_THREADS=2) died before the read ended: ${message.reason}`);
      }
      if (message.type === 'stopped') continue;
      if (message.type === 'batch') send({ type: 'ack' });
      for (const item of message.items) {
        if ('row' in item) {
          rows += 1;
          options.onRow?.(item.row);
          yield item.row;
        } else if ('quarantined' in item) {
          quarantined += 1;
          await quarantine(item.quarantined);
        } else if ('opened' in item) {
          options.unchanged?.opened(item.opened.file, item.opened.version);
        } else {
          options.unchanged?.readToEnd(item.readToEnd.file, item.readToEnd.sha256);
        }
      }
      if (message.type === 'batch') continue;
      ended = true;
      if (message.type === 'end') return;
      if (message.type === 'failed') throw rebuildThreadError(message.error);
      fallback.onMainThread?.(message.reason);
      yield* skipped(fallback.onThisThread, quarantine, options, { rows, quarantined });
      return;
    }
  } finally {
    if (!ended) {
      send({ type: 'stop' });
      await inbox.until((message) => message.type !== 'batch', STOP_WAIT_MS);
    }
    await worker.terminate();
  }
}

/** The source read again on this thread, the first `given.rows` rows and `given.quarantined` quarantined rows left out (the reading thread gave them). */
async function* skipped(
  onThisThread: ReadOnThisThread,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  options: ReadSourceOptions,
  given: { readonly rows: number; readonly quarantined: number },
): AsyncGenerator<SourceRow<unknown>> {
  let quarantineToSkip = given.quarantined;
  let observedToSkip = given.rows;
  let rowsToSkip = given.rows;
  const { onRow } = options;
  const rows = await onThisThread(
    async (row) => {
      if (quarantineToSkip > 0) quarantineToSkip -= 1;
      else await quarantine(row);
    },
    {
      ...options,
      ...(onRow === undefined
        ? {}
        : {
            onRow: (row: SourceRow<unknown>) => {
              if (observedToSkip > 0) observedToSkip -= 1;
              else onRow(row);
            },
          }),
    },
  );
  for await (const row of rows) {
    if (rowsToSkip > 0) rowsToSkip -= 1;
    else yield row;
  }
}
