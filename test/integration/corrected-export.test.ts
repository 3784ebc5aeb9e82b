import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/shop-catalogue.ts';
import { sha256File } from '../../src/runs/run-key.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld } from '../helpers/open-fault-world.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';

const DATE = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DATE];

describeEachDialect('a corrected export of a completed date (issue 26 §1b)', (dialect) => {
  it('a plain rerun of a completed date whose file changed loads nothing and exits 3; --force loads it and marks what left the file deleted', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-corrected-'));
    try {
      world.sandbox.configure({ idempotencyKeys: true });
      cpSync(path.join(PROJECT_DIR, 'fixtures', 'shop-catalogue'), dir, { recursive: true });
      const file = path.join(dir, `${DATE}.csv`);
      const env = { ...world.env(), IDEM_SOURCE_DIR: dir };
      expect((await runCli(RUN, env)).code).toBe(0);
      const row = await world.db.knex('job_runs').where({ job_name: pipeline.name, run_key: DATE }).first('source_bytes', 'source_sha256');
      const recorded = { source_bytes: Number(row.source_bytes), source_sha256: row.source_sha256 as string };
      expect(recorded).toEqual({ source_bytes: readFileSync(file).length, source_sha256: await sha256File(file) });

      // The same file again: a no-op, as ever.
      const same = await runCli(RUN, env);
      expect(same.code, same.stderr).toBe(0);
      expect(summaryOf(same).outcome).toBe('noop');

      // The producer re-exports the date without one product.
      const lines = readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
      const gone = JSON.parse(lines[1]!.split(',')[0]!) as string;
      writeFileSync(file, `${[lines[0], ...lines.slice(2)].join('\n')}\n`);
      const plain = await runCli(RUN, env);
      expect(plain.code).toBe(3);
      expect(summaryOf(plain).msg).toMatch(new RegExp(`^the file changed since the completed run of ${DATE} \\(.*: ${recorded.source_bytes} bytes, sha256 ${recorded.source_sha256.slice(0, 16)} then, ${readFileSync(file).length} bytes, sha256 [0-9a-f]{16} now\\), so it was not loaded; --force loads it$`));
      expect(await world.db.knex(pipeline.tables.target).whereNotNull('deleted_at').count({ n: '*' }).then((r) => Number(r[0]!.n))).toBe(0);
      // job_runs still tells the completed run's story, which is true: that file was loaded.
      expect(await world.db.knex('job_runs').where({ job_name: pipeline.name, run_key: DATE }).first('status', 'attempts')).toEqual({ status: 'completed', attempts: 1 });

      const forced = await runCli([...RUN, '--force'], env);
      expect(forced.code, forced.stderr).toBe(0);
      expect(await world.db.knex(pipeline.tables.target).whereNotNull('deleted_at').pluck('source_reference')).toEqual([gone]);
      expect(world.sandbox.state.stats().requests.filter((r) => r.method === 'DELETE').map((r) => r.reference)).toEqual([gone]);
      // Now the corrected file is the completed run's: a plain rerun is a no-op again.
      expect(summaryOf(await runCli(RUN, env)).outcome).toBe('noop');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await world.close();
    }
  }, 120_000);
});
