import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runIdemChild } from '../../src/child-process/start-idem-child.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

// idem used from a repository of one's own: the package in node_modules/idem (a link to this
// checkout, as `npm i ../idem` makes it), IDEM_PROJECT_DIR at a folder that holds only one
// pipeline and its migration. idem's own tables come from the package.

const PIPELINE = `import { z } from 'zod';
import { column, csvSource, definePipeline } from 'idem';

export const pipeline = definePipeline({
  name: 'airports',
  sourceSystem: 'faa',
  timeZone: 'UTC',
  source: csvSource({
    directory: 'data',
    fileForDate: (d) => d + '.csv',
    header: ['iata', 'name'],
    row: z.object({ iata: z.string().length(3), name: z.string().min(1) }),
    invalidRows: 'fail',
  }),
  async *toRecords(rows) {
    for await (const row of rows) yield { sourceReference: row.value.iata, line: row.line, values: { name: row.value.name } };
  },
  tables: { staging: 'stg_airports', target: 'airports' },
  columns: { name: column.text() },
});
`;

const MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ staging: 'stg_airports', target: 'airports', columns: { name: column.text() } });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables({ staging: 'stg_airports', target: 'airports' });
}
`;

describe('idem from a repository of its own', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('migrates idem’s own tables from the package and the project’s from its folder, then runs', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'idem-own-repo-'));
    for (const sub of ['pipelines', 'migrations', 'data', 'node_modules']) mkdirSync(path.join(dir, sub));
    symlinkSync(PROJECT_DIR, path.join(dir, 'node_modules', 'idem'), 'dir');
    symlinkSync(path.join(PROJECT_DIR, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'), 'dir');
    writeFileSync(path.join(dir, 'pipelines', 'airports.ts'), PIPELINE);
    writeFileSync(path.join(dir, 'migrations', '20270101000000_create_airports.ts'), MIGRATION);
    writeFileSync(path.join(dir, 'data', 'airports.csv'), 'iata,name\nSEA,Seattle-Tacoma\nPDX,Portland\n');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', IDEM_PROJECT_DIR: dir, DATABASE_URL: `sqlite:${path.join(dir, 'idem.sqlite3')}` };
    // Started from the project folder, as `npx idem` in one's own repository is.
    const idem = (args: string[]) => runIdemChild(args, env, { cwd: dir });

    const migrated = await idem(['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    const applied = migrated.stdout + migrated.stderr;
    for (const name of ['20261130000000_create_idem_tables', '20261130000200_create_post_ledger', '20261201000300_create_source_marks', '20270101000000_create_airports']) {
      expect(applied).toContain(name);
    }
    // The idem repository's own example pipelines are not this project's.
    expect(applied).not.toContain('create_online_retail_invoices');

    const run = await idem(['run', 'airports', '--file', path.join(dir, 'data', 'airports.csv')]);
    expect([run.code, run.summary?.outcome], run.stderr).toEqual([0, 'completed']);
    expect(run.summary?.counts).toMatchObject({ upsert: { inserted: 2, updated: 0 } });
    const again = await idem(['run', 'airports', '--file', path.join(dir, 'data', 'airports.csv')]);
    expect([again.code, again.summary?.outcome]).toEqual([0, 'noop']);

    // The test kit is on the package's public surface (package.json "exports": "./testing").
    const kit = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('idem/testing'); console.log(Object.keys(m).sort().join(','))"], { cwd: dir, encoding: 'utf8' });
    expect(kit.stdout.trim(), kit.stderr).toBe('recordingApi,serveHandlers,startPipelineTest');
  });
});
