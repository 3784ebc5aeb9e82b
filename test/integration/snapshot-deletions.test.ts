import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/shop-catalogue.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';

const CATALOGUE_DIR = path.join(PROJECT_DIR, 'fixtures', 'shop-catalogue');
/** The derived catalogue's products per day, and the ones of 2010-12-01 gone from 2010-12-02 (returned that day). */
const PRODUCTS = { '2010-12-01': 1334, '2010-12-02': 1572 };
const codes = (date: string): string[] => catalogueLines(date).slice(1).map((line) => JSON.parse(line.split(',')[0]!) as string);
const GONE_ON_02 = codes('2010-12-01').filter((code) => !codes('2010-12-02').includes(code));
const RUN = (date: string, ...flags: string[]) => ['run', pipeline.name, '--date', date, ...flags];

function catalogueLines(date: string): string[] {
  return readFileSync(path.join(CATALOGUE_DIR, `${date}.csv`), 'utf8').replace(/\n$/, '').split('\n');
}

/** A source directory holding the derived catalogue files, which a test may then replace one of. */
function sourceDir(): { dir: string; write(date: string, lines: readonly string[]): void; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-catalogue-'));
  cpSync(CATALOGUE_DIR, dir, { recursive: true });
  return { dir, write: (date, lines) => writeFileSync(path.join(dir, `${date}.csv`), `${lines.join('\n')}\n`), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function openCatalogue(dialect: Parameters<typeof openFaultWorld>[0], identity: string) {
  const world: FaultWorld = await openFaultWorld(dialect, identity);
  world.sandbox.configure({ idempotencyKeys: true });
  const source = sourceDir();
  const env = { ...world.env(), IDEM_SOURCE_DIR: source.dir };
  return {
    world,
    source,
    env,
    target: async () => (await world.db.knex(pipeline.tables.target).select('source_reference', 'deleted_at', 'deleted_in_run_key', 'last_changed_run_key')) as {
      source_reference: string; deleted_at: unknown; deleted_in_run_key: string | null; last_changed_run_key: string;
    }[],
    deletes: () => world.sandbox.state.stats().requests.filter((r) => r.method === 'DELETE'),
    jobRun: async (runKey: string) => (await world.db.knex('job_runs').where({ job_name: pipeline.name, run_key: runKey }).first()) as { status: string; error: string | null; counts: string | Record<string, any> },
    async close() {
      source.remove();
      await world.close();
    },
  };
}

const parsed = (counts: string | Record<string, any>): Record<string, any> => (typeof counts === 'string' ? JSON.parse(counts) : counts);

describeEachDialect('a full snapshot marks what left it deleted', (dialect) => {
  it('the example catalogue: products missing from the next day are marked deleted and deleted at the API once; a rerun sends nothing again', async ({ task }) => {
    expect(GONE_ON_02.length).toBe(15);
    const t = await openCatalogue(dialect, task.name);
    try {
      const first = await runCli(RUN('2010-12-01'), t.env);
      expect(first.code, first.stderr).toBe(0);
      expect(t.world.sandbox.state.records()).toHaveLength(PRODUCTS['2010-12-01']);

      const second = await runCli(RUN('2010-12-02'), t.env);
      expect(second.code, second.stderr).toBe(0);
      const rows = await t.target();
      const deleted = rows.filter((r) => r.deleted_at !== null);
      expect(deleted.map((r) => r.source_reference).sort()).toEqual([...GONE_ON_02].sort());
      expect(new Set(deleted.map((r) => r.deleted_in_run_key))).toEqual(new Set(['2010-12-02']));
      // Never removed: every product ever exported keeps its row.
      expect(rows).toHaveLength(new Set([...codes('2010-12-01'), ...codes('2010-12-02')]).size);
      // One DELETE per product gone, by the remote reference its create stored.
      expect(t.deletes().map((r) => r.reference).sort()).toEqual([...GONE_ON_02].sort());
      expect(t.world.sandbox.state.records().filter((r) => GONE_ON_02.includes(r.reference))).toEqual([]);
      expect(t.world.sandbox.state.records()).toHaveLength(PRODUCTS['2010-12-02']);
      const summary = summaryOf(second);
      expect(summary.counts.upsert.deletions).toEqual({ deleted: 15, tombstoned: 0, undeleted: 0, enqueued: 15 });
      expect(summary.counts.post['sandbox-accounting']).toMatchObject({ deleted: 15, unsent: 0, failed: 0 });
      expect(parsed((await t.jobRun('2010-12-02')).counts).upsert.deletions.deleted).toBe(15);
      const status = await runCli(['status', pipeline.name], t.env);
      expect(status.stdout).toMatch(/deleted 15, back 0/);

      // A forced rerun of the same file finds them deleted already: nothing marked, nothing sent.
      const again = await runCli(RUN('2010-12-02', '--force'), t.env);
      expect(again.code, again.stderr).toBe(0);
      expect(summaryOf(again).counts.upsert.deletions).toEqual({ deleted: 0, tombstoned: 0, undeleted: 0, enqueued: 0 });
      expect(t.deletes()).toHaveLength(15);
      expect(await t.world.db.knex('post_ledger').where({ row_hash: 'deleted' }).count({ n: '*' }).then((r) => Number(r[0]!.n))).toBe(15);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('the deletion of a record never posted to the destination sends nothing', async ({ task }) => {
    const t = await openCatalogue(dialect, task.name);
    try {
      const never = GONE_ON_02[0]!;
      // Its create is refused (400: terminal), so the API never holds it.
      t.world.sandbox.addFaults([{ kind: 'status', status: 400, reference: never }]);
      expect((await runCli(RUN('2010-12-01'), t.env)).code).toBe(3);
      const second = await runCli(RUN('2010-12-02'), t.env);
      expect(second.code, second.stderr).toBe(0);
      expect(summaryOf(second).counts.post['sandbox-accounting']).toMatchObject({ deleted: 14, unsent: 1 });
      expect(t.deletes().map((r) => r.reference)).not.toContain(never);
      expect(t.deletes()).toHaveLength(14);
      // The failed create is superseded by the deletion: it is never sent again.
      expect(await t.world.db.knex('post_ledger').where({ source_reference: never }).orderBy('id').select('row_hash', 'status')).toEqual([
        { row_hash: expect.stringMatching(/^[0-9a-f]{64}$/), status: 'superseded' },
        { row_hash: 'deleted', status: 'posted' },
      ]);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('a product that comes back is live again, counts as a change, and is created again at the API', async ({ task }) => {
    const t = await openCatalogue(dialect, task.name);
    try {
      expect((await runCli(RUN('2010-12-01'), t.env)).code).toBe(0);
      expect((await runCli(RUN('2010-12-02'), t.env)).code).toBe(0);
      // A product gone on 12-02 that the derived 12-03 lacks too, put back into 12-03's file.
      const back = GONE_ON_02.find((code) => !codes('2010-12-03').includes(code))!;
      const line = catalogueLines('2010-12-01').find((l) => l.startsWith(`"${back}",`))!;
      t.source.write('2010-12-03', [...catalogueLines('2010-12-03'), line]);
      const third = await runCli(RUN('2010-12-03'), t.env);
      expect(third.code, third.stderr).toBe(0);
      // The derived 12-03 sells again products returned on 12-02: they come back too.
      const comeBack = GONE_ON_02.filter((code) => codes('2010-12-03').includes(code));
      expect(summaryOf(third).counts.upsert.deletions.undeleted).toBe(comeBack.length + 1);
      // Created again (their remote items were deleted), not updated: nothing failed.
      expect(summaryOf(third).counts.post['sandbox-accounting']).toMatchObject({ failed: 0 });
      for (const code of [...comeBack, back]) expect(t.world.sandbox.state.recordsByReference(code)).toHaveLength(1);
      const row = (await t.target()).find((r) => r.source_reference === back)!;
      expect(row).toMatchObject({ deleted_at: null, deleted_in_run_key: null, last_changed_run_key: '2010-12-03' });
      expect(t.world.sandbox.state.recordsByReference(back)).toHaveLength(1);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('the delete guard: a file cut at a line boundary, and an empty file, stop before writing anything (exit 3) until --allow-deletes N confirms the count', async ({ task }) => {
    const t = await openCatalogue(dialect, task.name);
    try {
      expect((await runCli(RUN('2010-12-01'), t.env)).code).toBe(0);
      const before = await t.target();
      // Cut after 1000 lines, at a line boundary: a well-formed file that lacks 335 products.
      t.source.write('2010-12-02', catalogueLines('2010-12-02').slice(0, 1001));
      const cut = await runCli(RUN('2010-12-02'), t.env);
      expect(cut.code, cut.stderr).toBe(3);
      const absent = codes('2010-12-01').filter((code) => !catalogueLines('2010-12-02').slice(1, 1001).some((l) => l.startsWith(`"${code}",`))).length;
      expect(cut.stderr).toContain(`the read would mark ${absent} of 1334 live record(s) deleted`);
      expect(cut.stderr).toContain(`--allow-deletes ${absent}`);
      expect(await t.target()).toEqual(before);
      expect(t.deletes()).toHaveLength(0);
      expect(await t.jobRun('2010-12-02')).toMatchObject({ status: 'needs_review', error: expect.stringContaining(`--allow-deletes ${absent}`) });

      // A count that does not match is refused the same way.
      const wrong = await runCli(RUN('2010-12-02', '--allow-deletes', String(absent - 1)), t.env);
      expect(wrong.code).toBe(3);
      expect(wrong.stderr).toContain(`--allow-deletes ${absent - 1} does not match`);
      expect(await t.target()).toEqual(before);

      // The header only: an empty read of a scope that holds records.
      t.source.write('2010-12-03', catalogueLines('2010-12-03').slice(0, 1));
      const empty = await runCli(RUN('2010-12-03'), t.env);
      expect(empty.code).toBe(3);
      expect(empty.stderr).toContain('the read holds no records, and the target holds 1334 live record(s) of shop');
      expect(await t.target()).toEqual(before);

      const confirmed = await runCli(RUN('2010-12-02', '--allow-deletes', String(absent)), t.env);
      expect(confirmed.code, confirmed.stderr).toBe(0);
      expect((await t.target()).filter((r) => r.deleted_at !== null)).toHaveLength(absent);
      expect(t.deletes()).toHaveLength(absent);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('a run key that is not the newest never deletes: a backfill of an old file marks nothing deleted', async ({ task }) => {
    const t = await openCatalogue(dialect, task.name);
    try {
      expect((await runCli(RUN('2010-12-03'), t.env)).code).toBe(0);
      // 2010-12-01's file lacks every product first sold on 12-02 and 12-03: far over the guard,
      // and still nothing is deleted, with no confirmation asked.
      const backfill = await runCli(RUN('2010-12-01'), t.env);
      expect(backfill.code, backfill.stderr).toBe(0);
      expect(summaryOf(backfill).counts.deletions).toEqual({ marked: false, newerRunKey: '2010-12-03' });
      expect((await t.target()).filter((r) => r.deleted_at !== null)).toEqual([]);
      expect(t.deletes()).toHaveLength(0);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('--dry-run lists the deletions and sends nothing', async ({ task }) => {
    const t = await openCatalogue(dialect, task.name);
    try {
      expect((await runCli(RUN('2010-12-01'), t.env)).code).toBe(0);
      const plan = await runCli(RUN('2010-12-02', '--dry-run'), t.env);
      expect(plan.code, plan.stderr).toBe(0);
      const sorted = [...GONE_ON_02].sort();
      expect(plan.stdout).toContain(`  delete        15  e.g. ${sorted.slice(0, 5).join(', ')}, …`);
      expect((await t.target()).filter((r) => r.deleted_at !== null)).toEqual([]);
      expect(t.deletes()).toHaveLength(0);
    } finally {
      await t.close();
    }
  }, 120_000);
});
