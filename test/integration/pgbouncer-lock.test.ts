import { existsSync } from 'node:fs';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDatabase, type TestDatabase } from '../helpers/dialects.ts';
import { PGBOUNCER_BIN, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { destinationsEnv, startSandbox } from '../helpers/sandbox.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';

// Issue 28 §1: DATABASE_URL pointed at PgBouncer (Debian's, as production runs it), in
// transaction mode with a pool of 3 and in session mode. Two runs of one pipeline and date
// started together, repeated: one proceeds, the other exits 75 or is a no-op; no advisory lock
// outlives its process; job_runs is right; the sandbox, which counts records per reference,
// holds each invoice once.

const PIPELINE = 'online-retail-invoices';
/** Small real days, one per round (46, 49 and 97 invoices). */
const ROUNDS = [
  { date: '2011-03-27', invoices: 46 },
  { date: '2011-12-09', invoices: 49 },
  { date: '2011-10-30', invoices: 97 },
];

const unavailable = !DIALECTS.includes('postgres')
  ? 'TEST_DIALECTS leaves postgres out'
  : !existsSync(PGBOUNCER_BIN)
    ? `no PgBouncer at ${PGBOUNCER_BIN} (.ci/run installs Debian's pgbouncer)`
    : undefined;

for (const mode of ['transaction', 'session'] as const) {
  describe.skipIf(unavailable !== undefined)(`postgres through PgBouncer in ${mode} mode${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
    let bouncer: PgBouncer;
    let testDb: TestDatabase;
    let sandbox: SandboxApi;
    let env: Record<string, string>;
    const direct = () => knexFactory({ client: 'pg', connection: testDb.url, pool: { min: 0, max: 1 } });

    beforeAll(async () => {
      bouncer = await startPgBouncer(mode, 3);
      testDb = await createTestDatabase('postgres', `pgbouncer ${mode}`);
      sandbox = await startSandbox();
      env = { DATABASE_URL: bouncer.urlFor(testDb.url), IDEM_DESTINATIONS: destinationsEnv(sandbox), IDEM_LOCK_LEASE_MS: '1000' };
      const migrated = await runCli(['migrate'], env);
      expect(migrated.code, migrated.stderr).toBe(0);
    }, 60_000);
    afterAll(async () => {
      await sandbox?.close();
      await bouncer?.stop();
      await testDb?.drop();
    });

    it('two runs started together: one proceeds, the other exits 75 or is a no-op; no lock outlives them; nothing twice', { timeout: 180_000 }, async () => {
      for (const round of ROUNDS) {
        const [a, b] = await Promise.all([startCli(['run', PIPELINE, '--date', round.date], env).done, startCli(['run', PIPELINE, '--date', round.date], env).done]);
        const codes = [a.code, b.code].sort();
        expect(codes, `${round.date}\n${a.stderr}\n${b.stderr}\n${bouncer.log().slice(-2000)}`).toSatisfy((c: (number | null)[]) => c[0] === 0 && (c[1] === 0 || c[1] === 75));
        const admin = direct();
        try {
          const locks = await admin.raw("select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())");
          expect(locks.rows[0].n, 'an advisory lock outlived its process').toBe(0);
          const runs = await admin('job_runs').where({ job_name: PIPELINE, run_key: round.date }).select('status', 'attempts');
          expect(runs).toEqual([{ status: 'completed', attempts: 1 }]);
        } finally {
          await admin.destroy();
        }
        const perReference = new Map<string, number>();
        for (const record of sandbox.state.records()) perReference.set(record.reference, (perReference.get(record.reference) ?? 0) + 1);
        expect([...perReference.values()].filter((n) => n > 1), 'a record was created twice').toEqual([]);
        // And a run started after both sees a completed date: a no-op, not a lock held by a ghost.
        const after = await runCli(['run', PIPELINE, '--date', round.date], env);
        expect(after.code, after.stderr).toBe(0);
      }
      expect(sandbox.state.records()).toHaveLength(ROUNDS.reduce((n, round) => n + round.invoices, 0));
    });

    it.each(['after-stage', 'mid-upsert'])('a run killed at %s leaves no lock behind, and a plain rerun completes it', { timeout: 60_000 }, async (point) => {
      const date = point === 'after-stage' ? '2010-12-01' : '2010-12-02';
      const killed = await runCli(['run', PIPELINE, '--date', date], { ...env, IDEM_FAILPOINTS: `${point}=kill` });
      expect(killed.signal).toBe('SIGKILL');
      const admin = direct();
      try {
        // The pooler closes the server connection of a client gone mid-transaction; the lock goes with it.
        const deadline = Date.now() + 10_000;
        let held = -1;
        while (held !== 0 && Date.now() < deadline) {
          held = (await admin.raw("select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())")).rows[0].n;
          if (held !== 0) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(held, `the killed run's lock outlived it\n${bouncer.log().slice(-1500)}`).toBe(0);
        const rerun = await runCli(['run', PIPELINE, '--date', date], env);
        expect(rerun.code, rerun.stderr).toBe(0);
        expect(await admin('job_runs').where({ job_name: PIPELINE, run_key: date }).select('status', 'attempts')).toEqual([{ status: 'completed', attempts: 2 }]);
      } finally {
        await admin.destroy();
      }
      const references = sandbox.state.records().map((record) => record.reference);
      expect(new Set(references).size).toBe(references.length);
    });
  });
}


