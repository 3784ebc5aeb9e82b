import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeOneDialect } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { fixtureLines } from '../helpers/fixtures.ts';
import { runCli, startCli, summaryOf, type CliResult } from '../helpers/run-cli.ts';

// Issue 28 §5: a file its producer is still writing. The producer here is this test, appending
// whole lines of the day's export to the file while a held run reads it.
const DATE = '2010-12-01';
const [HEADER, ...LINES] = fixtureLines(DATE);
const INVOICES = new Set(LINES.map((line) => line.slice(0, line.indexOf(',')))).size;
const PUBLISHED = 1500; // lines the producer has written when the run starts
const text = (lines: readonly string[]): string => lines.map((line) => `${line}\n`).join('');

describeOneDialect('a source file that changes while it is read', (dialect) => {
  let project: ExampleProject;
  let dir: string;
  let release: string;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    dir = mkdtempSync(path.join(tmpdir(), 'idem-producer-'));
    release = path.join(mkdtempSync(path.join(tmpdir(), 'idem-hold-')), 'release');
  });
  afterEach(() => project?.close());

  /** The producer: the rest of the day's lines, appended a few hundred whole lines at a time. */
  const produceTheRest = (file: string, lines: readonly string[]): void => {
    for (let at = 0; at < lines.length; at += 400) appendFileSync(file, text(lines.slice(at, at + 400)));
  };

  const targetRows = async (): Promise<number> => Number((await project.db.knex(pipeline.tables.target).count({ n: '*' }))[0]!.n);
  const jobRun = (runKey: string) => project.db.knex('job_runs').where({ job_name: pipeline.name, run_key: runKey }).first();

  /** A run that ended 75 because its file changed: nothing upserted or posted, job_runs `failed` saying so. */
  async function expectRetryLater(result: CliResult, change: RegExp): Promise<string> {
    const summary = summaryOf(result);
    expect([result.code, summary.outcome, summary.exitCode]).toEqual([75, 'failed', 75]);
    expect(summary.err.message).toMatch(change);
    expect(summary.err.message).toContain('the file changed while it was read');
    expect(summary.err.message).toContain('retry later');
    expect(summary.counts.upsert).toBeUndefined();
    expect(await targetRows()).toBe(0);
    expect(project.sandbox.state.records()).toHaveLength(0);
    const row = await jobRun(summary.runKey);
    expect([row.status, row.error]).toEqual(['failed', summary.err.message]);
    return summary.runKey as string;
  }

  /** The rerun once the producer has finished: every line of the file is loaded and posted. */
  async function expectWholeFileLoaded(result: CliResult): Promise<void> {
    const summary = summaryOf(result);
    expect([result.code, summary.outcome]).toEqual([0, 'completed']);
    expect(summary.counts.extract).toMatchObject({ rows: LINES.length, quarantined: 0 });
    expect(summary.counts.upsert).toMatchObject({ inserted: INVOICES });
    expect(await targetRows()).toBe(INVOICES);
    expect(project.sandbox.state.records()).toHaveLength(INVOICES);
    expect((await jobRun(summary.runKey)).status).toBe('completed');
  }

  for (const flag of ['--date', '--file'] as const) {
    it(`${flag}: lines appended while the run reads the file end it with 75; the rerun loads every line`, async () => {
      const file = path.join(dir, `${DATE}.csv`);
      writeFileSync(file, text([HEADER!, ...LINES.slice(0, PUBLISHED)]));
      const args = ['run', pipeline.name, ...(flag === '--date' ? ['--date', DATE] : ['--file', file])];
      const env = { ...project.env, IDEM_SOURCE_DIR: dir };
      // Five invoices a staging batch: the run holds after its first batch, a few hundred lines into the file.
      const run = startCli([...args, '--batch-rows', '5'], { ...env, IDEM_FAILPOINTS: `mid-stage=wait:${release}` });
      try {
        await expect.poll(async () => Number((await project.db.knex(pipeline.tables.staging).count({ n: '*' }))[0]!.n), { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
        produceTheRest(file, LINES.slice(PUBLISHED));
      } finally {
        writeFileSync(release, '');
      }
      const published = Buffer.byteLength(text([HEADER!, ...LINES.slice(0, PUBLISHED)]));
      const whole = Buffer.byteLength(text([HEADER!, ...LINES]));
      await expectRetryLater(await run.done, new RegExp(`its size went from ${published} to ${whole} bytes`));

      await expectWholeFileLoaded(await runCli(args, env));
    });
  }

  it('--date: a line the producer has half written when the read reaches it is the change (75), not a file that cannot be parsed (1)', async () => {
    const file = path.join(dir, `${DATE}.csv`);
    writeFileSync(file, text([HEADER!, ...LINES.slice(0, PUBLISHED)]));
    const run = startCli(['run', pipeline.name, '--date', DATE, '--batch-rows', '5'], { ...project.env, IDEM_SOURCE_DIR: dir, IDEM_FAILPOINTS: `mid-stage=wait:${release}` });
    try {
      await expect.poll(async () => Number((await project.db.knex(pipeline.tables.staging).count({ n: '*' }))[0]!.n), { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
      produceTheRest(file, LINES.slice(PUBLISHED));
      appendFileSync(file, '581587,22138,"BAKING SET'); // the next line, its quote not yet closed
    } finally {
      writeFileSync(release, '');
    }
    await expectRetryLater(await run.done, /its size went from \d+ to \d+ bytes/);

    appendFileSync(file, ' 9 PIECE RETROSPOT",3,2010-12-01 17:50:00,4.95,12680.0,France\n');
    const rerun = await runCli(['run', pipeline.name, '--date', DATE], { ...project.env, IDEM_SOURCE_DIR: dir });
    expect([rerun.code, summaryOf(rerun).counts.extract.rows]).toEqual([0, LINES.length + 1]);
  });

  it('--file: lines appended after the run key was taken, before the read, end the sorted re-read with 75 naming the run key', async () => {
    // Not grouped by invoice: the first pass stops at the first invoice that comes back, and the
    // sorted re-read is the one that reads the file to its end.
    const published = LINES.slice(0, PUBLISHED);
    const unsorted = [...published.filter((_, i) => i % 2 === 0), ...published.filter((_, i) => i % 2 === 1)];
    const file = path.join(dir, 'invoices.csv');
    writeFileSync(file, text([HEADER!, ...unsorted]));
    const run = startCli(['run', pipeline.name, '--file', file], { ...project.env, IDEM_FAILPOINTS: `before-stage=wait:${release}` });
    try {
      // The attempt has started, holding before its first read: its run key names the 1,500 lines.
      await expect.poll(async () => (await project.db.knex('job_runs').where({ job_name: pipeline.name, status: 'started' })).length, { timeout: 30_000, interval: 50 }).toBe(1);
      produceTheRest(file, LINES.slice(PUBLISHED));
    } finally {
      writeFileSync(release, '');
    }
    const result = await run.done;
    expect(result.logs.some((line) => /reading it again, grouped by the sort/.test(String(line.msg)))).toBe(true);
    const firstKey = await expectRetryLater(result, /its content is no longer the content its run key was made of: sha256 [0-9a-f]{16}… read, [0-9a-f]{16}… when the run started/);

    const rerun = await runCli(['run', pipeline.name, '--file', file], project.env);
    await expectWholeFileLoaded(rerun);
    // The whole file is another run key; the first stays failed, and names the 1,500 lines.
    expect(summaryOf(rerun).runKey).not.toBe(firstKey);
    expect((await jobRun(firstKey)).status).toBe('failed');
  });

  it('--date: a file that changed between the first read and the sorted re-read ends the run with 75', async () => {
    // Grouped, but for the first line, moved past the lines already published: its invoice comes
    // back there, after the run's first batches, and the run reads the file again.
    const file = path.join(dir, `${DATE}.csv`);
    writeFileSync(file, text([HEADER!, ...LINES.slice(1, PUBLISHED), LINES[0]!]));
    const run = startCli(['run', pipeline.name, '--date', DATE, '--batch-rows', '5'], { ...project.env, IDEM_SOURCE_DIR: dir, IDEM_FAILPOINTS: `mid-stage=wait:${release}` });
    try {
      await expect.poll(async () => Number((await project.db.knex(pipeline.tables.staging).count({ n: '*' }))[0]!.n), { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
      produceTheRest(file, LINES.slice(PUBLISHED));
    } finally {
      writeFileSync(release, '');
    }
    await expectRetryLater(await run.done, /between the first read and the sorted re-read, its size went from \d+ to \d+ bytes/);

    await expectWholeFileLoaded(await runCli(['run', pipeline.name, '--date', DATE], { ...project.env, IDEM_SOURCE_DIR: dir }));
  });
});
