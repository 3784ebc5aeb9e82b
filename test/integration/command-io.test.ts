import { afterEach, describe, expect, it } from 'vitest';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { runInProcess } from '../helpers/run-cli.ts';

// main(argv, io) run in this process, the way the suite's runCli runs most commands: each command
// reads its own environment and writes its own output, also two at once. SQL is not the subject:
// SQLite is enough.
const PIPELINE = 'online-retail-invoices';

describe('main(argv, io): a command in a process of the caller', () => {
  const projects: ExampleProject[] = [];
  afterEach(async () => {
    await Promise.all(projects.splice(0).map((project) => project.close()));
  });

  it('two runs at once, each on the database its own environment names, each with only its own log lines', async () => {
    const [a, b] = await Promise.all([setUpExampleProject('sqlite', 'io-a'), setUpExampleProject('sqlite', 'io-b')]);
    projects.push(a, b);
    const databaseUrlBefore = process.env.DATABASE_URL;

    const [runA, runB] = await Promise.all([
      runInProcess(['run', PIPELINE, '--date', '2010-12-01'], a.env),
      runInProcess(['run', PIPELINE, '--date', '2010-12-02'], b.env),
    ]);

    expect([runA.code, runB.code], runA.stderr + runB.stderr).toEqual([0, 0]);
    expect(new Set(runA.logs.map((line) => line.runKey).filter(Boolean))).toEqual(new Set(['2010-12-01']));
    expect(new Set(runB.logs.map((line) => line.runKey).filter(Boolean))).toEqual(new Set(['2010-12-02']));
    expect(await a.db.knex('job_runs').pluck('run_key')).toEqual(['2010-12-01']);
    expect(await b.db.knex('job_runs').pluck('run_key')).toEqual(['2010-12-02']);
    // Each destination got its own day's invoices only (143 on 2010-12-01, 167 on 2010-12-02).
    expect([runA.summary?.counts, runB.summary?.counts]).toMatchObject([
      { post: { 'sandbox-accounting': { created: 143 } } },
      { post: { 'sandbox-accounting': { created: 167 } } },
    ]);
    expect(process.env.DATABASE_URL).toBe(databaseUrlBefore);

    // A command's data goes to its own stdout, its error line to its own stderr.
    const status = await runInProcess(['status', PIPELINE, '--json'], a.env);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).runs.map((run: { runKey: string }) => run.runKey)).toEqual(['2010-12-01']);
    const usage = await runInProcess(['run', PIPELINE, '--date', 'someday'], a.env);
    expect([usage.code, usage.stdout]).toEqual([2, '']);
    expect(usage.stderr).toMatch(/^idem: .*someday/);
  });
});
