import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';

const PIPELINE = 'online-retail-invoices';
const DATE = '2010-12-01';

/**
 * idem's modules a no-op rerun has no use for, each loaded where it is used: the locked attempt
 * and the destinations' settings (a run past the completed check), --catch-up's and --dry-run's
 * own, idem migrate's migration context, and the schema drift error's table (a check that fails).
 */
const NOT_FOR_A_NOOP = [
  'runner/run-locked-attempt', 'runner/run-stages', 'post/resolve-destination', 'runner/run-catch-up', 'runner/run-dates',
  'runner/format-plan', 'migration/create-migration-context', 'migration/schema-drift-error',
];

describe('a no-op rerun as a whole process (issue 29: it loads what its checks need)', () => {
  let project: ExampleProject;

  beforeEach(async (context) => {
    project = await setUpExampleProject('sqlite', context.task.name);
  });

  afterEach(() => project?.close());

  it("loads none of idem's modules that only a run past the completed check, another flag or idem migrate uses", async () => {
    // A child process (IDEM_TEST_CHILD): the test looks at which modules a process loads.
    const run = (env: Record<string, string>) => runCli(['run', PIPELINE, '--date', DATE], { ...project.env, IDEM_TEST_CHILD: '1', ...env });
    expect((await run({})).code).toBe(0);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'idem-noop-loads-')), 'imports.txt');
    // knex, which every run loads, is recorded too: the hook ran, so nothing else recorded means nothing else loaded.
    const match = `/dist/src/(${NOT_FOR_A_NOOP.join('|')})\\.js$|/knex/knex\\.`;
    const noop = await run({ NODE_OPTIONS: `--import=${path.join(PROJECT_DIR, 'test', 'helpers', 'record-imports.mjs')}`, IDEM_TEST_IMPORTS_FILE: file, IDEM_TEST_IMPORTS_MATCH: match });
    expect([noop.code, summaryOf(noop).outcome]).toEqual([0, 'noop']);
    const recorded = readFileSync(file, 'utf8').trimEnd().split('\n');
    const knex = (url: string) => /\/knex\/knex\./.test(url);
    expect(recorded.some(knex)).toBe(true);
    expect(recorded.filter((url) => !knex(url))).toEqual([]);
  });
});
