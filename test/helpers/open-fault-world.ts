import type { Database } from '../../src/db/database.ts';
import type { SandboxRequestLog } from '../../src/sandbox/sandbox-state.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import type { TestDatabase, TestDialect } from './dialects.ts';
import { createMigratedTestDatabase } from './migrated-test-database.ts';
import { destinationsEnv, startSandbox } from './sandbox.ts';
import { openTestDatabase } from './test-db.ts';

/**
 * One isolated world for a fault test: a fresh migrated database (a copy of the run's migrated
 * template, see `createMigratedTestDatabase`), a sandbox destination, and the CLI environment that
 * points at both. Worlds share nothing, so tests that each open their own can run concurrently.
 */
export interface FaultWorld {
  readonly testDb: TestDatabase;
  /** The database, open in the test process for assertions. */
  readonly db: Database;
  readonly sandbox: SandboxApi;
  /**
   * The CLI's environment: `DATABASE_URL`, a 1 s SQLite lease (a rerun after a SIGKILL waits for
   * the dead run's lease) and `IDEM_DESTINATIONS` with `overrides` (see `destinationsEnv`).
   */
  env(overrides?: Record<string, unknown>): Record<string, string>;
  /** Sees every API request the sandbox logs, before it is processed. */
  onRequest: ((request: SandboxRequestLog) => void) | undefined;
  close(): Promise<void>;
}

/** Opens a {@link FaultWorld} on `dialect`; `identity` names its database. */
export async function openFaultWorld(dialect: TestDialect, identity: string): Promise<FaultWorld> {
  const testDb = await createMigratedTestDatabase(dialect, identity);
  const db = await openTestDatabase(testDb.url);
  // The hook is looked up on every request, so a test can set and clear it at any time.
  const sandbox = await startSandbox({ onRequest: (request) => world.onRequest?.(request) });
  const world: FaultWorld = {
    testDb,
    db,
    sandbox,
    env: (overrides = {}) => ({ DATABASE_URL: testDb.url, IDEM_LOCK_LEASE_MS: '1000', IDEM_DESTINATIONS: destinationsEnv(sandbox, overrides) }),
    onRequest: undefined,
    async close() {
      await db.close();
      await sandbox.close();
      await testDb.drop();
    },
  };
  return world;
}
