import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A process taking part in a run's post stage: the run itself (`idem run`, which holds the
 * pipeline's app lock) or an `idem work` worker (which never takes it: claims and the post
 * strategies keep it safe). See docs/scaling.md.
 */
export interface PostWorker {
  /**
   * Written to the ledger's `claimed_by`; unique per process, for example
   * `worker 0b6f…, pid 4242 on etl-7`. A run's name starts with `run `, a worker's with `worker `.
   */
  readonly name: string;
  /**
   * Proves the process may go on claiming, before every claim: the run asserts its app lock; a
   * worker has nothing to prove. @throws LockLostError (the run) when the lock is gone.
   */
  assertMayPost(): Promise<void>;
  /**
   * Proves what the process needs besides its claim on an item to send it, immediately before
   * every request: the run, that its app lock is still valid (`AppLock.assertValid`, without a
   * round trip while it can), and held, by a round trip before every batch of requests (see
   * `ProvedSendBatches`); a worker, nothing. @throws LockLostError (the run).
   */
  assertMaySend(): Promise<void>;
  /**
   * What of {@link assertMaySend} needs no round trip, once more as a request is written to the
   * socket (see `checkBeforeWrite`): the run, `AppLock.assertValidNow`; a worker, nothing.
   * @throws LockLostError (the run).
   */
  assertMaySendNow(): void;
}

/** The prefix of every run's {@link PostWorker} name. */
export const RUN_WORKER_PREFIX = 'run ';
/** The prefix of every `idem work` process's {@link PostWorker} name. */
export const WORK_WORKER_PREFIX = 'worker ';

/**
 * A fresh {@link PostWorker} name for this process, at most 300 characters (the column's size).
 * @param kind `run` for `idem run`, `worker` for `idem work`.
 */
export function postWorkerName(kind: 'run' | 'worker'): string {
  return `${kind} ${randomUUID()}, pid ${process.pid} on ${hostname()}`.slice(0, 300);
}
