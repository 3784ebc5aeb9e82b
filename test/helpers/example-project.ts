import type { Database } from '../../src/db/database.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from './dialects.ts';
import { runCli } from './run-cli.ts';
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

/** Sets up an {@link ExampleProject} for one test (`idem migrate` runs as a child process). */
export async function setUpExampleProject(dialect: TestDialect, identity: string): Promise<ExampleProject> {
  const testDb = await createTestDatabase(dialect, identity);
  const sandbox = await startSandbox();
  const env = { DATABASE_URL: testDb.url, IDEM_DESTINATIONS: destinationsEnv(sandbox) };
  const migrated = await runCli(['migrate'], env);
  if (migrated.code !== 0) throw new Error(`idem migrate exited ${migrated.code}: ${migrated.stderr}`);
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
