import type { ResolvedConfig } from '../config/resolved-config.ts';
import { createScratchDatabase, type ScratchDatabase } from '../db/create-scratch-database.ts';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open-database.ts';
import { migrateLatest, pendingMigrations } from '../migration/migrator.ts';

/**
 * The database `idem check` compares the pipelines' columns with:
 * - `configured`: the configured database, every migration applied;
 * - `migration-files`: the configured database has migrations pending (a fresh database in CI,
 *   say), so a throwaway SQLite database with every migration file applied stands in for it;
 *   `pending` lists what the configured one lacks;
 * - `none`: not migrated, and the migration files do not apply to SQLite (`error` says why).
 */
export type SchemaDatabase =
  | { readonly kind: 'configured'; readonly db: Database }
  | { readonly kind: 'migration-files'; readonly db: Database; readonly pending: readonly string[] }
  | { readonly kind: 'none'; readonly pending: readonly string[]; readonly error: string };

/**
 * Opens the {@link SchemaDatabase} on first use (the scratch database is made and migrated once
 * for every pipeline checked); `close` drops the scratch database, if one was made.
 * @param configured the configured database, opened on first use (see `CheckContext.database`).
 */
export function lazySchemaDatabase(config: ResolvedConfig, configured: () => Promise<Database>): { get: () => Promise<SchemaDatabase>; close: () => Promise<void> } {
  let opened: Promise<SchemaDatabase> | undefined;
  let scratch: { database: ScratchDatabase; db?: Database } | undefined;
  const open = async (): Promise<SchemaDatabase> => {
    const db = await configured();
    const pending = await pendingMigrations(db, config.projectDir);
    if (pending.length === 0) return { kind: 'configured', db };
    scratch = { database: await createScratchDatabase({ prefix: 'idem_check' }) };
    try {
      scratch.db = await openDatabase({ databaseUrl: scratch.database.url, projectDir: config.projectDir });
      await migrateLatest(scratch.db, config.projectDir);
      return { kind: 'migration-files', db: scratch.db, pending };
    } catch (error) {
      return { kind: 'none', pending, error: (error as Error).message.split('\n')[0]! };
    }
  };
  return {
    get: () => (opened ??= open()),
    close: async () => {
      if (!scratch) return;
      await scratch.db?.close();
      await scratch.database.drop();
    },
  };
}
