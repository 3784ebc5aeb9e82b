import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';

/** A pipeline whose derived query reads every date (no filter on the scope): the DELETE of one date would be refilled with all of them. */
const UNBOUNDED = `import { z } from 'zod';
import { column, csvSource, definePipeline } from 'idem';

export const pipeline = definePipeline({
  name: 'sales',
  sourceSystem: 'shop',
  timeZone: 'UTC',
  key: 'ref',
  source: csvSource({ directory: 'data', fileForDate: (d) => \`\${d}.csv\` }),
  tables: { staging: 'stg_sales', target: 'sales' },
  columns: { country: column.text(), sold_at: column.instant() },
  derived: [{
    table: 'daily_sales',
    columns: { business_date: column.date(), country: column.text(), sales: column.integer() },
    query: (sales) => sales.groupBy('country').select('country').count({ sales: '*' }),
  }],
});
`;

// Not a database matter: the module is refused when it loads, before any connection.
describe('a derived table whose query does not filter on its scope is refused at load: exit 2 naming the pipeline, the table and the rule', () => {
  let project: ScratchProject;
  let dbDir: string;
  let env: Record<string, string>;

  beforeAll(() => {
    project = createScratchProject('derived-refusals');
    project.writePipeline('sales', UNBOUNDED);
    dbDir = mkdtempSync(path.join(tmpdir(), 'idem-derived-refusals-'));
    env = { DATABASE_URL: `sqlite:${path.join(dbDir, 'idem.db')}`, IDEM_PROJECT_DIR: project.dir };
  });

  afterAll(() => {
    project.remove();
    rmSync(dbDir, { recursive: true, force: true });
  });

  const RULE = /pipelines\/sales\.ts: .*derived\[0\] \(daily_sales\)\.query must filter on the scope with a bound parameter/;

  it('idem check', async () => {
    const checked = await runCli(['check', '--no-database'], env);
    expect(checked.code).toBe(2);
    expect(checked.stdout + checked.stderr).toMatch(/sales/);
    expect(checked.stdout + checked.stderr).toMatch(/derived\[0\] \(daily_sales\)\.query must filter on the scope with a bound parameter/);
  });

  it('idem run', async () => {
    const run = await runCli(['run', 'sales', '--date', '2026-01-05'], env);
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toMatch(RULE);
  });
});
