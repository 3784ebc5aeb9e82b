import { expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open-database.ts';
import type { SandboxProduct } from '../../src/sandbox/validate-sandbox-products.ts';
import { createTestDatabase, describeEachDialect } from '../helpers/dialects.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';
import { startSandbox } from '../helpers/sandbox.ts';
import { createScratchProject } from '../helpers/scratch-project.ts';

const TABLES = "{ staging: 'stg_catalogue', target: 'catalogue' }";
const COLUMNS = '{ description: column.text(), unit_price: column.decimal(10, 3) }';

/** The whole catalogue from the sandbox's paged API on every run: a full snapshot, 100 products a page. */
const PIPELINE = `import { column, definePipeline, httpJsonSource } from 'idem';
export const pipeline = definePipeline({
  name: 'catalogue',
  sourceSystem: 'shop',
  timeZone: 'UTC',
  key: 'stock_code',
  source: httpJsonSource({
    path: '/products?style=cursor',
    paging: { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 100 },
    items: (body) => (body as { data: unknown[] }).data,
    snapshot: 'full',
  }),
  tables: ${TABLES},
  columns: ${COLUMNS},
});
`;
const MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ ...${TABLES}, columns: ${COLUMNS} });
}
export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables(${TABLES});
}
`;

const CATALOGUE: SandboxProduct[] = Array.from({ length: 300 }, (_, i) => ({
  stock_code: `P${String(i).padStart(3, '0')}`, description: `ITEM ${i}`, unit_price: i % 2 === 0 ? '0.500' : '2.500',
}));

describeEachDialect('the delete guard against an API export that went wrong', (dialect) => {
  it('an API that served its first page only, and an export with a broken filter, stop before writing anything (exit 3)', async ({ task }) => {
    const testDb = await createTestDatabase(dialect, task.name);
    const project = createScratchProject('guard-api');
    const sandbox = await startSandbox();
    const db = await openDatabase({ databaseUrl: testDb.url, projectDir: project.dir });
    try {
      project.writePipeline('catalogue', PIPELINE);
      project.writeMigration('20260101000000_create_catalogue', MIGRATION);
      const env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: project.dir, IDEM_SOURCES: JSON.stringify({ catalogue: { url: sandbox.url } }), IDEM_LOCK_LEASE_MS: '1000' };
      expect((await runCli(['migrate'], env)).code).toBe(0);
      sandbox.state.setProducts(CATALOGUE);
      const run = (date: string) => runCli(['run', 'catalogue', '--date', date], env);
      expect((await run('2026-03-01')).code).toBe(0);
      const live = () => db.knex('catalogue').whereNull('deleted_at').count({ n: '*' }).then((r) => Number(r[0]!.n));
      expect(await live()).toBe(300);

      // The API ends after its first page, which it cut short (60 items, no next cursor): 240 of
      // 300 missing. (A full first page with no next cursor is refused before this, exit 2:
      // singleFullPage.)
      sandbox.state.setProducts(CATALOGUE.slice(0, 60));
      const firstPage = await run('2026-03-02');
      expect(firstPage.code).toBe(3);
      expect(summaryOf(firstPage).err.message).toContain('the read would mark 240 of 300 live record(s) deleted (80%)');
      expect(await live()).toBe(300);

      // The export's filter broke: only the products under 1.00.
      sandbox.state.setProducts(CATALOGUE.filter((p) => p.unit_price === '0.500'));
      const filtered = await run('2026-03-02');
      expect(filtered.code).toBe(3);
      expect(summaryOf(filtered).err.message).toContain('--allow-deletes 150');
      expect(await live()).toBe(300);
      expect(await db.knex('job_runs').where({ run_key: '2026-03-02' }).first('status')).toEqual({ status: 'needs_review' });

      // The whole catalogue but 3 products (1%): under the guard, marked without a question.
      sandbox.state.setProducts(CATALOGUE.slice(3));
      const real = await run('2026-03-02');
      expect(real.code, real.stderr).toBe(0);
      expect(summaryOf(real).counts.upsert.deletions).toMatchObject({ deleted: 3 });
      expect(await live()).toBe(297);
    } finally {
      await db.close();
      await sandbox.close();
      project.remove();
      await testDb.drop();
    }
  }, 120_000);
});
