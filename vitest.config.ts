import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One config: unit tests (no database) and integration tests (real SQLite, PostgreSQL and
// MariaDB, the CLI as a child process). The JSON report feeds the plain
// "N passed, N failed" line that .ci/run prints.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^idem\/testing$/, replacement: fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)) },
      { find: /^idem$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three test files at a time. Vitest's default is one fewer than the cores, one on a 2-core
    // machine, while much of a file's time is spent waiting on CLI children, databases, loopback
    // servers and leases: the whole suite on a 2-core VM used 1.6 cores on average with three.
    maxWorkers: 3,
    // A worker process runs file after file with the modules it has loaded. Most commands run
    // in the test's own process (test/helpers/run-cli.ts), and idem loaded and warmed once per
    // worker instead of once per file took the suite from 1,565 to 1,181 CPU seconds (938 s →
    // 732 s wall). No test file sets globals it does not restore; each test makes its own
    // database, project and servers.
    isolate: false,
    // Starts SQL Server in a container where a container runtime exists (else costs ~nothing).
    globalSetup: ['./test/global-setup.ts'],
    reporters: ['default', ['json', { outputFile: '.test-results/vitest.json' }]],
  },
});
