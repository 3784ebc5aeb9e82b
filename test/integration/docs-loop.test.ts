import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runIdemChild, type IdemChildResult } from '../../src/child-process/start-idem-child.ts';
import { PROJECT_DIR, summaryOf } from '../helpers/run-cli.ts';

// docs/writing-a-pipeline.md, "The loop: new → run → check → test → prove", followed command by
// command in a repository of one's own ("idem in a repository of your own"): idem installed in
// node_modules (a link to this checkout, as `npm i ../idem` makes it, with zod, and vitest and msw
// for the tests), IDEM_PROJECT_DIR the folder, no DATABASE_URL, so the database is
// $IDEM_PROJECT_DIR/var/idem.sqlite3. If this test has to change, the doc has to change with it.

const SAMPLE = path.join(PROJECT_DIR, 'fixtures/samples/airports.csv');

/** `npx vitest run FILE` in the project: its vitest (a link to idem's), its Node first on PATH. */
function vitest(project: string, file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(project, 'node_modules/vitest/vitest.mjs'), 'run', file, '--root', project], {
      cwd: project,
      env: { PATH: `${path.join(PROJECT_DIR, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}`, HOME: process.env.HOME, IDEM_PROJECT_DIR: project, CI: '1', NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('docs/writing-a-pipeline.md: the loop, end to end, in a repository of one\'s own', () => {
  let project: string | undefined;
  afterEach(() => {
    if (project) rmSync(project, { recursive: true, force: true });
    project = undefined;
  });

  it('new → migrate and run (a rerun is a no-op) → check → the generated test → prove', { timeout: 600_000 }, async () => {
    // mkdir my-etl && cd my-etl && npm init -y && npm i ../idem zod (and npm i -D vitest msw); mkdir pipelines migrations
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-docs-loop-'));
    project = dir;
    for (const sub of ['pipelines', 'migrations', 'node_modules']) mkdirSync(path.join(dir, sub));
    symlinkSync(PROJECT_DIR, path.join(dir, 'node_modules', 'idem'), 'dir');
    for (const dependency of ['zod', 'vitest', 'msw']) symlinkSync(path.join(PROJECT_DIR, 'node_modules', dependency), path.join(dir, 'node_modules', dependency), 'dir');
    copyFileSync(SAMPLE, path.join(dir, 'sample.csv'));
    // export IDEM_PROJECT_DIR=$PWD; no DATABASE_URL.
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', IDEM_PROJECT_DIR: dir };
    const idem = async (...args: string[]): Promise<IdemChildResult> => {
      const result = await runIdemChild(args, env, { cwd: dir });
      expect(result.code, `idem ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
      return result;
    };

    // new: npx idem new airports --csv sample.csv --key iata
    const created = await idem('new', 'airports', '--csv', 'sample.csv', '--key', 'iata');
    for (const file of ['pipelines/airports.ts', 'fixtures/airports/sample.csv', 'test/pipelines/airports.test.ts']) {
      expect(existsSync(path.join(dir, file)), `${file}\n${created.stdout}`).toBe(true);
    }
    expect(readFileSync(path.join(dir, 'pipelines/airports.ts'), 'utf8')).toContain("key: 'iata',");
    // It says what comes next: the rest of the loop, as the doc gives it.
    expect(created.stdout).toContain(['next:', '  idem migrate', '  idem run airports --file sample.csv', '  idem check airports', '  npx vitest run test/pipelines/airports.test.ts', '  idem prove airports --file sample.csv'].join('\n'));

    // run: npx idem migrate && npx idem run airports --file sample.csv; the same command again is a no-op.
    await idem('migrate');
    expect(existsSync(path.join(dir, 'var/idem.sqlite3'))).toBe(true);
    const first = await idem('run', 'airports', '--file', 'sample.csv');
    expect(summaryOf(first)).toMatchObject({ outcome: 'completed', counts: { upsert: { inserted: 20, updated: 0, unchanged: 0 } } });
    const again = await idem('run', 'airports', '--file', 'sample.csv');
    expect(summaryOf(again).outcome).toBe('noop');

    // check: npx idem check airports (exit 0, asserted by idem()).
    await idem('check', 'airports');

    // test: npx vitest run test/pipelines/airports.test.ts
    const tested = await vitest(dir, 'test/pipelines/airports.test.ts');
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toMatch(/Tests\s+1 passed \(1\)/);

    // prove: npx idem prove airports --file sample.csv
    const proved = await idem('prove', 'airports', '--file', 'sample.csv');
    // Without destinations, the checks of the post stage are skipped and say so; every other one passes.
    expect(proved.stdout).toMatch(/^clean run +pass +rows 20$/m);
    expect(proved.stdout).toMatch(/^second run is a no-op +pass +noop, rows 20 = 20$/m);
    expect(proved.stdout).toMatch(/^kill at before-complete, rerun +pass +rows 20 = 20, attempts 2, staging 0, lock free$/m);
    expect(proved.stdout).toMatch(/^two runs at once +pass +exit 0 \+ 75/m);
    // The post stage's: kill during post, pause, 504, 409, 500, late apply, killed lock session, paused worker, keys.
    expect(proved.stdout.match(/^.+ skip +no destinations$/gm)).toHaveLength(9);
    expect(proved.stdout).not.toMatch(/ fail /);
    expect(proved.stdout).toContain('passed: 22 checks');
  });
});
