import { mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/closed-port.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli } from '../helpers/run-cli.ts';

// `idem prove` of a pipeline with a SQL source (pipelines/shop-orders.ts): every case reads a
// throwaway SQLite stand-in filled by stand-ins/shop-orders.ts, never the real database, which
// here is a PostgreSQL URL with a closed port and a password: one read of it would fail the clean
// run, and the password must appear nowhere.
const PROOF_TIMEOUT_MS = 300_000;
const CANARY = 'canary-pw-5b1e';

describe.skipIf(!DIALECTS.includes('sqlite'))('sqlite: idem prove of a SQL source, on its stand-in', () => {
  it('shop-orders passes every check: kills at every stage, reruns, an overlap, with the real database unreachable', { timeout: PROOF_TIMEOUT_MS }, async () => {
    const env = { IDEM_SOURCES: JSON.stringify({ shop: { url: `postgres://reader:${CANARY}@127.0.0.1:${await closedPort()}/shop` } }) };
    const result = await runCli(['prove', 'shop-orders', '--date', '2011-03-27', '--seed', '327'], env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // The stand-in's six orders of the date: not the one shipped at its end (the next date's), nor the one before.
    expect(result.stdout).toMatch(/^clean run +pass +rows 6, remote 6 once, requests 6$/m);
    for (const check of ['before-stage', 'mid-stage', 'after-extract', 'after-stage', 'mid-upsert', 'after-upsert', 'before-post', 'before-complete']) {
      expect(result.stdout).toMatch(new RegExp(`^kill at ${check}, rerun +pass +rows 6 = 6, remote 6 once`, 'm'));
    }
    expect(result.stdout).toMatch(/^two runs at once +pass +exit 0 \+ 75, rows 6 = 6/m);
    expect(result.stdout + result.stderr).not.toContain(CANARY);
  });

  it('without a stand-in of its database, prove refuses (exit 2) rather than read the real one', { timeout: 60_000 }, async () => {
    const standIn = path.join(PROJECT_DIR, 'stand-ins', 'shop-orders.ts');
    const aside = path.join(mkdtempSync(path.join(tmpdir(), 'idem-stand-in-')), 'shop-orders.ts');
    renameSync(standIn, aside);
    try {
      const result = await runCli(['prove', 'shop-orders', '--date', '2011-03-27'], { IDEM_SOURCES: JSON.stringify({ shop: { url: 'sqlite:var/never-read.sqlite3' } }) });
      expect(result.code).toBe(2);
      expect(result.stdout + result.stderr).toContain('idem prove never reads the real source database "shop": describe its stand-in in stand-ins/shop-orders.ts');
    } finally {
      renameSync(aside, standIn);
    }
  });
});
