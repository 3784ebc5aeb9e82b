import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-products.ts';
import type { SandboxProduct } from '../../src/sandbox/validate-sandbox-products.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';
import { sourcesEnv } from '../helpers/sandbox.ts';

const TODAY = '2026-12-01';
const CATALOGUE: SandboxProduct[] = Array.from({ length: 4 }, (_, i) => ({
  stock_code: `P${i + 1}`, description: `ITEM ${i + 1}`, unit_price: `${i + 1}.50`, updated_at: `2026-11-0${i + 1}T10:00:00.000Z`,
}));

describeEachDialect('an incremental source sees tombstones: an archived product is marked deleted, and live again once active', (dialect) => {
  it('the products API: archived is a tombstone, read by the next plain run; served active again, the product is back', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      world.sandbox.state.setProducts(CATALOGUE);
      const env = { ...world.env(), IDEM_SOURCES: sourcesEnv(world.sandbox) };
      const run = () => runCli(['run', pipeline.name, '--date', TODAY], env);
      const target = async () =>
        Object.fromEntries(((await world.db.knex(pipeline.tables.target).select('source_reference', 'deleted_in_run_key', 'description')) as Record<string, string | null>[]).map((r) => [r.source_reference, [r.description, r.deleted_in_run_key]]));
      expect((await run()).code).toBe(0);

      // An archived product is a change (a new updated_at): the incremental read gets it as a tombstone.
      world.sandbox.state.updateProduct('P2', { status: 'archived', description: 'ITEM 2 (OLD)' });
      const archived = await run();
      expect(archived.code, archived.stderr).toBe(0);
      expect(summaryOf(archived).counts.upsert).toMatchObject({ inserted: 0, updated: 0, deletions: { deleted: 0, tombstoned: 1, undeleted: 0, enqueued: 0 } });
      // Marked only: its values stay those of its last live version, and the row stays.
      expect(await target()).toEqual({ P1: ['ITEM 1', null], P2: ['ITEM 2', TODAY], P3: ['ITEM 3', null], P4: ['ITEM 4', null] });

      world.sandbox.state.updateProduct('P2', { status: 'active' });
      const back = await run();
      expect(summaryOf(back).counts.upsert).toMatchObject({ updated: 1, deletions: { tombstoned: 0, undeleted: 1 } });
      expect((await target()).P2).toEqual(['ITEM 2 (OLD)', null]);
    } finally {
      await world.close();
    }
  }, 120_000);
});
