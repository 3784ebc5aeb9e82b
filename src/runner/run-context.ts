import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import type { ProgressFactory } from '../progress/progress.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import type { PoliteStop } from '../stop/polite-stop.ts';
import type { Failpoints } from './failpoints.ts';

/** What every command works with: the resolved settings, the open database and the logger. */
export interface RunContext {
  readonly config: ResolvedConfig;
  readonly db: Database;
  readonly logger: Logger;
  /** The clock; injected in tests. @defaultValue () => new Date() */
  readonly now?: () => Date;
  /** Fault injection for tests. @defaultValue none */
  readonly failpoints?: Failpoints;
  /** Progress bars for long stages (a terminal only). @defaultValue none */
  readonly progress?: ProgressFactory;
  /** OpenTelemetry export of each run's trace and metrics (docs/operating.md, "Telemetry"). @defaultValue none */
  readonly telemetry?: Telemetry;
  /**
   * The process's polite stop (SIGTERM, SIGINT, SIGHUP): read at every stage boundary, before
   * every claim and every request (docs/operating.md, "Stopping a run"). @defaultValue none: the
   * run goes on to its end
   */
  readonly stop?: PoliteStop;
}

/** The run's clock as ISO 8601 instants, for what it writes: `ctx.now`, else the system clock. */
export function isoClock(ctx: Pick<RunContext, 'now'>): () => string {
  return () => (ctx.now?.() ?? new Date()).toISOString();
}
