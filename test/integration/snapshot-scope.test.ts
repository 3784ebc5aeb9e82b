import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open-database.ts';
import { createTestDatabase, describeEachDialect } from '../helpers/dialects.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';
import { destinationsEnv, startSandbox } from '../helpers/sandbox.ts';
import { createScratchProject } from '../helpers/scratch-project.ts';

const TABLES = "{ staging: 'stg_stock', target: 'stock' }";
const COLUMNS = "{ store: column.text(), qty: column.integer() }";

/** Stock per store, each file a full export of the stores it holds; a destination with no delete request. */
const PIPELINE = `import { column, csvSource, definePipeline } from 'idem';
export const pipeline = definePipeline({
  name: 'stock',
  sourceSystem: 'shops',
  timeZone: 'UTC',
  key: 'ref',
  source: csvSource({ directory: 'data', fileForDate: (d) => \`\${d}.csv\`, snapshot: 'full', snapshotScope: 'store', maxDeleteShare: 0.5 }),
  tables: ${TABLES},
  columns: ${COLUMNS},
  destinations: [{
    name: 'sandbox-accounting',
    strategy: 'idempotency-key',
    request: (row) => ({ method: 'POST', path: '/items', body: { reference: row.sourceReference, type: 'item', version: row.version } }),
    remoteReference: (body) => (body as { id: string }).id,
  }],
});
`;

/** A target made before idem marked deletions: without its two columns. */
const OLD_MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ ...${TABLES}, columns: ${COLUMNS} });
  await idem.alterColumns('stock', { drop: ['deleted_at', 'deleted_in_run_key'] });
}
export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables(${TABLES});
}
`;

describeEachDialect('a snapshot scoped by a column, on a target from before deletions', (dialect) => {
  it('migrate --make adds deleted_at and deleted_in_run_key; a file of store A deletes in A only; a destination without delete is sent nothing', async ({ task }) => {
    const testDb = await createTestDatabase(dialect, task.name);
    const project = createScratchProject('scope');
    const sandbox = await startSandbox();
    const db = await openDatabase({ databaseUrl: testDb.url, projectDir: project.dir });
    try {
      project.writePipeline('stock', PIPELINE);
      project.writeMigration('20260101000000_create_stock', OLD_MIGRATION);
      const env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: project.dir, IDEM_SOURCE_DIR: project.dataDir, IDEM_DESTINATIONS: destinationsEnv(sandbox), IDEM_LOCK_LEASE_MS: '1000' };
      expect((await runCli(['migrate'], env)).code).toBe(0);
      const write = (date: string, rows: string[]) => writeFileSync(path.join(project.dataDir, `${date}.csv`), `ref,store,qty\n${rows.join('\n')}\n`);
      write('2026-03-01', ['a1,A,1', 'a2,A,2', 'a3,A,3', 'b1,B,1', 'b2,B,2']);

      const drift = await runCli(['run', 'stock', '--date', '2026-03-01'], env);
      expect(drift.code).toBe(2);
      expect(drift.stderr).toContain('deleted_at');
      const made = await runCli(['migrate', '--make', 'add_deletion_columns'], env);
      expect(made.code, made.stderr).toBe(0);
      const file = readdirSync(path.join(project.dir, 'migrations')).find((f) => f.endsWith('_add_deletion_columns.ts'))!;
      const source = readFileSync(path.join(project.dir, 'migrations', file), 'utf8');
      expect(source).toContain("await idem.alterColumns('stock', {\n    add: {\n      deleted_at: column.instant({ nullable: true }),\n      deleted_in_run_key: column.text({ maxLength: 200, nullable: true }),\n    },\n  });");
      expect((await runCli(['migrate'], env)).code).toBe(0);

      expect((await runCli(['run', 'stock', '--date', '2026-03-01'], env)).code).toBe(0);
      // Store A's export alone: a3 left store A; store B is not in this read and is left alone.
      write('2026-03-02', ['a1,A,1', 'a2,A,5']);
      const second = await runCli(['run', 'stock', '--date', '2026-03-02'], env);
      expect(second.code, second.stderr).toBe(0);
      expect(summaryOf(second).counts.deletions).toMatchObject({ marked: true, snapshot: true, absent: 1 });
      expect(summaryOf(second).counts.upsert.deletions).toEqual({ deleted: 1, tombstoned: 0, undeleted: 0, enqueued: 0 });
      const rows = (await db.knex('stock').orderBy('source_reference').select('source_reference', 'deleted_in_run_key')) as { source_reference: string; deleted_in_run_key: string | null }[];
      expect(rows.map((r) => [r.source_reference, r.deleted_in_run_key])).toEqual([['a1', null], ['a2', null], ['a3', '2026-03-02'], ['b1', null], ['b2', null]]);
      // No delete request declared: nothing is sent for a3 (a2's change is still posted, as a create of this API).
      expect(sandbox.state.stats().requests.filter((r) => r.method === 'DELETE')).toEqual([]);
      expect(await db.knex('post_ledger').where({ row_hash: 'deleted' }).count({ n: '*' }).then((r) => Number(r[0]!.n))).toBe(0);

      // Store B's export with one of two left: 50% is not over a maxDeleteShare of 0.5; all of A's gone is.
      write('2026-03-03', ['b1,B,1']);
      expect((await runCli(['run', 'stock', '--date', '2026-03-03'], env)).code).toBe(0);
      write('2026-03-04', ['a9,A,1']);
      const held = await runCli(['run', 'stock', '--date', '2026-03-04'], env);
      expect(held.code).toBe(3);
      expect(summaryOf(held).err.message).toContain('the read would mark 2 of 2 live record(s) of store "A" deleted (100%), over the source\'s maxDeleteShare of 50%');
    } finally {
      await db.close();
      await sandbox.close();
      project.remove();
      await testDb.drop();
    }
  }, 120_000);
});
