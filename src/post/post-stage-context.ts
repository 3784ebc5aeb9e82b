import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import type { ProgressFactory } from '../progress/progress.ts';
import type { PostWorker } from './post-worker.ts';

/** What the post stage runs with. */
export interface PostStageContext {
  readonly db: Database;
  readonly config: ResolvedConfig;
  /** The current instant, ISO. */
  readonly now: () => string;
  /** Injected in tests so long retry waits do not sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** @defaultValue `SILENT_PROGRESS` */
  readonly progress?: ProgressFactory;
  /**
   * Aborted when the process is asked to stop (a polite stop, see `PoliteStop`): no claim and no
   * request starts after it, the requests in flight finish. @defaultValue none
   */
  readonly stop?: AbortSignal;
}

/** One pass of one process over a run's post stage. */
export interface PostPass {
  readonly runKey: string;
  readonly log: Logger;
  readonly worker: PostWorker;
  /** The process's first pass over this run: it logs its counts at info even when it found nothing. */
  readonly firstPass?: boolean;
}
