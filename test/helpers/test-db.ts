import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { migrateLatest } from '../../src/migration/migrator.ts';
import { PROJECT_DIR } from './run-cli.ts';

/** Opens a test database in-process (for asserting on rows the CLI wrote). */
export function openTestDatabase(url: string): Promise<Database> {
  return openDatabase({ databaseUrl: url, projectDir: PROJECT_DIR });
}

/** Opens and migrates a test database in-process. */
export async function openMigratedDatabase(url: string): Promise<Database> {
  const db = await openTestDatabase(url);
  await migrateLatest(db, PROJECT_DIR);
  return db;
}
