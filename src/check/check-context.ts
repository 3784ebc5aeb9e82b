import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import type { SchemaDatabase } from './schema-database.ts';

/** What a {@link PipelineCheck} may look at. Nothing in it runs a pipeline or writes anything. */
export interface CheckContext {
  readonly config: ResolvedConfig;
  /**
   * The configured database, opened on first use and closed when `checkPipelines` ends (so a
   * run of checks that need none never connects). Checks only read through it.
   */
  readonly database: () => Promise<Database>;
  /**
   * The database the pipelines' columns are compared with (see {@link SchemaDatabase}): the
   * configured one once migrated, else the migration files applied to a throwaway SQLite
   * database. Opened on first use, once for every pipeline checked.
   */
  readonly schemaDatabase: () => Promise<SchemaDatabase>;
}
