import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { DIALECTS, unavailableReason } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { FIXTURE_DIR, fixtureLines, writeTempSource } from '../helpers/fixtures.ts';
import { seededRandom } from '../../src/prove/seeded-random.ts';
import { runCli, summaryOf, type CliResult } from '../helpers/run-cli.ts';
import { destinationsEnv, startSandbox } from '../helpers/sandbox.ts';
import { mountTmpfs, tmpfsUnavailableReason, type Tmpfs } from '../helpers/tmpfs.ts';

// Issue 28 §8: a full disk under the database. Each disk is real: a small tmpfs, full when the
// run writes its largest day. A rerun cannot help until a person frees space: exit 3, and the
// message leads with the cause, where it was the last words of a long SQL statement.
const DATE = '2010-12-06';
const RUN = ['run', pipeline.name, '--date', DATE];
const noTmpfs = tmpfsUnavailableReason();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The run ended 3 on a full disk, leading with `cause`; job_runs and `idem status` say the same, whole. */
async function expectDiskFull(result: CliResult, env: Record<string, string>, cause: RegExp): Promise<void> {
  const summary = summaryOf(result);
  expect([result.code, summary.outcome, summary.exitCode], result.stderr.slice(-1500)).toEqual([3, 'failed', 3]);
  // The summary's msg is the error's own message (its err.message, pino's, adds the driver's error behind it).
  const message = (summary.msg as string).replace(/^run failed: /, '');
  expect(message).toMatch(cause);
  expect(message).toMatch(/; nothing of (extract and stage|upsert|post) was committed; free space on that disk \(or give the database more\), then run the same command again$/);
  expect(message).not.toMatch(/insert into|copy "|COMMIT;/); // no statement
  const status = await runCli(['status', pipeline.name, '--json'], env);
  expect(JSON.parse(status.stdout).runs[0]).toMatchObject({ runKey: DATE, status: 'failed', error: message });
  const table = await runCli(['status', pipeline.name], env);
  expect(table.stdout).toContain(`${pipeline.name} ${DATE} failed: ${message}\n`);
}

describe.skipIf(noTmpfs !== undefined || !DIALECTS.includes('sqlite'))(`sqlite: a full disk under the database file${noTmpfs ? ` (skipped: ${noTmpfs})` : ''}`, () => {
  it('exits 3 leading with "the database or disk is full (SQLite file …)"; with space freed, the same command finishes', async () => {
    const disk: Tmpfs = mountTmpfs('1m');
    cleanups.push(() => disk.close());
    const sandbox = await startSandbox();
    cleanups.push(() => sandbox.close());
    const file = path.join(disk.dir, 'idem.sqlite3');
    const env = { DATABASE_URL: `sqlite:${file}`, IDEM_DESTINATIONS: destinationsEnv(sandbox), IDEM_SOURCE_DIR: FIXTURE_DIR };
    expect((await runCli(['migrate'], env)).code).toBe(0);

    await expectDiskFull(await runCli(RUN, env), env, new RegExp(`^the database or disk is full \\(SQLite file ${file}: database or disk is full\\)`));

    disk.resize('64m');
    const rerun = await runCli(RUN, env);
    expect([rerun.code, summaryOf(rerun).counts.upsert?.inserted]).toEqual([0, 133]);
  });
});

describe.skipIf(noTmpfs !== undefined || !DIALECTS.includes('postgres') || unavailableReason('postgres') !== undefined)(`postgres: a full disk under the staging table${noTmpfs ? ` (skipped: ${noTmpfs})` : ''}`, () => {
  let project: ExampleProject;

  it('exits 3 leading with "the database server\'s disk is full (PostgreSQL SQLSTATE 53100 …)"; with space freed, the same command finishes', async (context) => {
    project = await setUpExampleProject('postgres', context.task.name);
    cleanups.push(() => project.close());
    const postgres = { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
    const disk = mountTmpfs('128k', postgres);
    cleanups.push(() => disk.close());
    // The staging table on a tablespace of its own, on the small disk (the rest of the server's files stay where they are).
    const tablespace = `idem_full_${randomBytes(4).toString('hex')}`;
    await project.db.knex.raw(`create tablespace ${tablespace} location '${disk.dir}'`);
    cleanups.push(async () => {
      await project.db.knex.raw(`alter table ${pipeline.tables.staging} set tablespace pg_default`);
      await project.db.knex.raw(`drop tablespace ${tablespace}`);
    });
    await project.db.knex.raw(`alter table ${pipeline.tables.staging} set tablespace ${tablespace}`);
    const env = { ...project.env, IDEM_SOURCE_DIR: FIXTURE_DIR };

    await expectDiskFull(await runCli(RUN, env), env, /^the database server's disk is full \(PostgreSQL SQLSTATE 53100 disk_full: could not (extend|write to) file "[^"]+": No space left on device\)/);

    disk.resize('64m');
    const rerun = await runCli(RUN, env);
    expect([rerun.code, summaryOf(rerun).counts.upsert?.inserted]).toEqual([0, 133]);
  });
});

describe.skipIf(!DIALECTS.includes('mysql') || unavailableReason('mysql') !== undefined)('mysql: a full table file under the staging table', () => {
  // Not a full disk: InnoDB on a full disk ends the whole server (MariaDB 10.11: "[FATAL] InnoDB:
  // Error (Out of disk space) in rollback", signal 6), which a shared test server must not do. A
  // Aria table whose data file has reached its size (ROW_FORMAT=DYNAMIC, MAX_ROWS=1: 65,535 bytes) gets the same
  // answer from the server, ER_RECORD_FILE_FULL (1114), as an InnoDB table that cannot grow.
  it('exits 3 leading with "the database server\'s disk or a table\'s space is full (… 1114 ER_RECORD_FILE_FULL …)"', async (context) => {
    const project = await setUpExampleProject('mysql', context.task.name);
    cleanups.push(() => project.close());
    await project.db.knex.raw(`alter table ${pipeline.tables.staging} engine=Aria row_format=dynamic max_rows=1 avg_row_length=10`);
    const env = { ...project.env, IDEM_SOURCE_DIR: FIXTURE_DIR };

    await expectDiskFull(await runCli(RUN, env), env, new RegExp(`^the database server's disk or a table's space is full \\(MySQL/MariaDB error 1114 ER_RECORD_FILE_FULL: The table '${pipeline.tables.staging}' is full\\)`));

    await project.db.knex.raw(`alter table ${pipeline.tables.staging} engine=InnoDB row_format=default max_rows=0 avg_row_length=0`);
    const rerun = await runCli(RUN, env);
    expect([rerun.code, summaryOf(rerun).counts.upsert?.inserted]).toEqual([0, 133]);
  });
});

describe.skipIf(noTmpfs !== undefined || !DIALECTS.includes('sqlite'))(`sqlite: a full TMPDIR under the external sort${noTmpfs ? ` (skipped: ${noTmpfs})` : ''}`, () => {
  it('exits 3 naming TMPDIR and the sort; with space freed, the same command finishes', async (context) => {
    const project = await setUpExampleProject('sqlite', context.task.name);
    cleanups.push(() => project.close());
    // Six days in a seeded random order: more rows than the sort keeps in memory (10,000), so it spills runs to TMPDIR.
    const [header, ...lines] = fixtureLines('2010-12-01');
    for (const date of ['2010-12-02', '2010-12-03', '2010-12-05', '2010-12-06', '2010-12-07']) lines.push(...fixtureLines(date).slice(1));
    const random = seededRandom(28);
    for (let i = lines.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    }
    const file = path.join(writeTempSource('week.csv', `${[header, ...lines].join('\n')}\n`), 'week.csv');
    const tmp = mountTmpfs('256k');
    cleanups.push(() => tmp.close());
    // A child process: the external sort's TMPDIR is the process's (os.tmpdir()).
    const env = { ...project.env, TMPDIR: tmp.dir, IDEM_TEST_CHILD: '1' };

    const result = await runCli(['run', pipeline.name, '--file', file], env);
    const summary = summaryOf(result);
    expect([result.code, summary.outcome, summary.exitCode], result.stderr.slice(-1500)).toEqual([3, 'failed', 3]);
    const message = `the temporary directory TMPDIR=${tmp.dir} is full (ENOSPC) while sorting the source's rows by key through files there; free space there or point TMPDIR elsewhere, then run the same command again`;
    expect(summary.msg).toBe(`run failed: ${message}`);
    expect(await project.db.knex('job_runs').where({ run_key: summary.runKey }).first()).toMatchObject({ status: 'failed', error: message });

    tmp.resize('64m');
    const rerun = await runCli(['run', pipeline.name, '--file', file], env);
    expect([rerun.code, summaryOf(rerun).counts.extract?.rows]).toEqual([0, lines.length]);
  });
});
