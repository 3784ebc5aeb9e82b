import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';

/** What every view of `idem ui` reads from: the database, the settings and the pipelines of the project. */
export interface UiContext {
  readonly db: Database;
  readonly config: ResolvedConfig;
  /** The pipelines found in `pipelines/`, by name, loaded once when the page starts. */
  readonly pipelines: ReadonlyMap<string, PipelineDefinition>;
  /** The current time, epoch ms (`IDEM_NOW` when set, as every command reads it). */
  now(): number;
  /** How long without a heartbeat a started run is dead, ms: as `idem status` reckons it. */
  readonly staleMs: number;
}

/** Rows per page of every list that can grow without bound (runs, quarantine, ledger items). */
export const PAGE_SIZE = 50;
