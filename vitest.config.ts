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
    // Two test files at a time. Vitest's default is one fewer than the cores, one on this 2-core
    // machine, while most of a file's time is spent waiting on CLI children, databases and loopback
    // servers, not on this process's CPU.
    maxWorkers: 2,
    // Starts SQL Server in a container where a container runtime exists (else costs ~nothing).
    globalSetup: ['./test/global-setup.ts'],
    reporters: ['default', ['json', { outputFile: '.test-results/vitest.json' }]],
  },
});
