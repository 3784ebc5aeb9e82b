import type { Database } from '../../src/db/database.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import type { TestDatabase, TestDialect } from './dialects.ts';
import { createMigratedTestDatabase } from './migrated-test-database.ts';
import { destinationsEnv, startSandbox } from './sandbox.ts';
import { openTestDatabase } from './test-db.ts';

/** A fresh, migrated database, the sandbox destination, and the CLI env pointing at both. */
export interface ExampleProject {
  readonly testDb: TestDatabase;
  readonly db: Database;
  readonly sandbox: SandboxApi;
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** Sets up an {@link ExampleProject} for one test (its database a copy of the run's migrated template: see `createMigratedTestDatabase`). */
export async function setUpExampleProject(dialect: TestDialect, identity: string): Promise<ExampleProject> {
  const testDb = await createMigratedTestDatabase(dialect, identity);
  const sandbox = await startSandbox();
  const env = { DATABASE_URL: testDb.url, IDEM_DESTINATIONS: destinationsEnv(sandbox) };
  const db = await openTestDatabase(testDb.url);
  return {
    testDb,
    db,
    sandbox,
    env,
    async close() {
      await db.close();
      await sandbox.close();
      await testDb.drop();
    },
  };
}
