import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_DIALECT_FILES } from '../helpers/one-dialect-files.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

/**
 * Why one dialect is enough for some files, held to the code: the files that run on one dialect
 * are exactly those listed with a reason, they never branch on the dialect or reach into a
 * dialect adapter, and the files whose subject is SQL, locks, bulk loads or types still run on
 * every dialect.
 */
const EVERY_DIALECT_FILES = [
  'test/faults/kill-matrix.test.ts', // a crash at every stage boundary: each dialect's transactions
  'test/faults/worker-kill.test.ts', // claims that lapse: the ledger's claim SQL
  'test/faults/update-kill.test.ts', // ledger versions written before a PUT
  'test/faults/paused-process.test.ts', // a lock lost while paused; a write transaction held open
  'test/faults/overlap.test.ts', // the app lock under contention
  'test/faults/clock.test.ts', // timestamps through each driver under other process time zones
  'test/integration/app-lock.test.ts',
  'test/integration/lock-conflict.test.ts',
  'test/integration/ledger-enqueue.test.ts',
  'test/integration/post-workers.test.ts', // claims shared between processes
  'test/integration/dialect-values.test.ts',
  'test/integration/canonical-values.test.ts',
  'test/integration/duplicate-keys.test.ts',
  'test/integration/dry-run.test.ts', // a rolled-back transaction
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = testFiles(path.join(PROJECT_DIR, 'test')).map((file) => ({
  name: path.relative(PROJECT_DIR, file).split(path.sep).join('/'),
  text: readFileSync(file, 'utf8'),
}));

describe('test files on one dialect', () => {
  it('are exactly the files listed in test/helpers/one-dialect-files.ts, each with its reason', () => {
    const using = files.filter((f) => /\bdescribeOneDialect\(/.test(f.text)).map((f) => f.name).sort();
    expect(using).toEqual(Object.keys(ONE_DIALECT_FILES).sort());
    for (const reason of Object.values(ONE_DIALECT_FILES)) expect(reason.length).toBeGreaterThan(20);
  });

  it('never branch on the dialect nor import a dialect adapter', () => {
    for (const file of files.filter((f) => f.name in ONE_DIALECT_FILES)) {
      expect(file.text, file.name).not.toMatch(/dialect\s*[!=]==|src\/dialect\//);
    }
  });

  it('leave the files whose subject is SQL, locks, bulk loads or types on every dialect', () => {
    for (const name of EVERY_DIALECT_FILES) {
      const file = files.find((f) => f.name === name);
      expect(file?.text, name).toMatch(/\bdescribeEachDialect\(/);
    }
  });
});
