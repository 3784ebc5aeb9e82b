import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFaultWorld } from '../helpers/open-fault-world.ts';
import { openTestDatabase } from '../helpers/test-db.ts';
import { PROJECT_DIR, runCli } from '../helpers/run-cli.ts';
import { idemBinPath } from '../../src/child-process/idem-bin-path.ts';

/** The unprivileged user (nobody) an unreadable file is tried as: the suite runs as root, which reads any file. */
const NOBODY = 65534;

/** Runs the CLI as {@link NOBODY}, to its end: exit code and stderr. */
function runCliAsNobody(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [idemBinPath(), ...args], { cwd: PROJECT_DIR, env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env }, uid: NOBODY, gid: NOBODY, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

// Issue 14, smaller things an operator hit: what idem refuses, and the files it creates.
describe('operator refusals and file modes', () => {
  it('read-only commands never create a SQLite database: exit 2 naming the file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-readonly-'));
    const file = path.join(dir, 'typo.sqlite3');
    for (const args of [['status'], ['review', 'online-retail-invoices'], ['quarantine', 'online-retail-invoices'], ['prune', '--older-than', '30d', '--dry-run']]) {
      const result = await runCli(args, { DATABASE_URL: `sqlite:${file}` });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(`idem: the SQLite database ${file} does not exist, and this command never creates one`);
      expect(existsSync(file)).toBe(false);
    }
  });

  it('creates the SQLite database and its WAL files 0600', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-mode-'));
    const file = path.join(dir, 'idem.sqlite3');
    const migrated = await runCli(['migrate'], { DATABASE_URL: `sqlite:${file}` });
    expect(migrated.code, migrated.stderr).toBe(0);
    const status = await runCli(['status'], { DATABASE_URL: `sqlite:${file}` });
    expect(status.code, status.stderr).toBe(0);
    // While a connection writes, the -wal and -shm files exist: SQLite gives them the database file's mode.
    const db = await openTestDatabase(`sqlite:${file}`);
    try {
      await db.knex.raw('create table scratch_mode_check (x integer)');
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect((statSync(f).mode & 0o777).toString(8), f).toBe('600');
    } finally {
      await db.close();
    }
  });

  it('refuses a missing source directory, a symlinked source file, prune --older-than 0d; --replay of a failing pipeline does not suggest --force', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-refuse-'));
    const env = { DATABASE_URL: `sqlite:${path.join(dir, 'idem.sqlite3')}`, IDEM_DESTINATIONS: JSON.stringify({ 'sandbox-accounting': { url: 'http://127.0.0.1:9' } }) };
    expect((await runCli(['migrate'], env)).code).toBe(0);

    // online-retail-invoices declares missing: 'skip' for a missing file; a missing directory is still a configuration error.
    const missingDir = path.join(dir, 'no-such-dir');
    const noDir = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-04'], { ...env, IDEM_SOURCE_DIR: missingDir });
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain(`its source directory ${missingDir} does not exist or is not a directory (IDEM_SOURCE_DIR)`);

    // A link in the source directory to a file that is not a source: refused, its content never echoed.
    const secret = path.join(dir, 'secret.txt');
    writeFileSync(secret, 'root-secret-line-9931,x,y\n');
    const linkDir = mkdtempSync(path.join(tmpdir(), 'idem-links-'));
    symlinkSync(secret, path.join(linkDir, '2010-12-01.csv'));
    for (const args of [['--date', '2010-12-01'], ['--file', path.join(linkDir, '2010-12-01.csv')]]) {
      const linked = await runCli(['run', 'online-retail-invoices', ...args], { ...env, IDEM_SOURCE_DIR: linkDir });
      expect(linked.code, args.join(' ')).toBe(2);
      expect(linked.stderr).toContain(`source file ${path.join(linkDir, '2010-12-01.csv')} is a symbolic link, and idem reads only regular files`);
      expect(linked.stderr + linked.stdout).not.toContain('root-secret-line-9931');
    }
    // A FIFO or a directory named like the day's file (issue 28 §5): exit 2 at once, not a run
    // that hangs on the FIFO holding its lock, nor a raw EISDIR.
    const oddDir = mkdtempSync(path.join(tmpdir(), 'idem-odd-'));
    execFileSync('mkfifo', [path.join(oddDir, '2010-12-01.csv')]);
    mkdirSync(path.join(oddDir, '2010-12-02.csv'));
    for (const [date, what] of [['2010-12-01', 'a FIFO (named pipe)'], ['2010-12-02', 'a directory']]) {
      const odd = await runCli(['run', 'online-retail-invoices', '--date', date], { ...env, IDEM_SOURCE_DIR: oddDir });
      expect(odd.code, odd.stderr).toBe(2);
      expect(odd.stderr).toContain(`source file ${path.join(oddDir, `${date}.csv`)} is ${what}, and idem reads only regular files`);
    }
    const fifoFile = await runCli(['run', 'online-retail-invoices', '--file', path.join(oddDir, '2010-12-01.csv')], env);
    expect(fifoFile.code, fifoFile.stderr).toBe(2);
    expect(fifoFile.stderr).toContain('--file must be a file');

    // A regular file whose header is wrong: the message names the fields it lacks, never the line.
    const wrongDir = mkdtempSync(path.join(tmpdir(), 'idem-wrong-'));
    copyFileSync(secret, path.join(wrongDir, '2010-12-01.csv'));
    const wrong = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_SOURCE_DIR: wrongDir });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('2010-12-01.csv:1: header must be InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country: no field named InvoiceNo');
    expect(wrong.stderr + wrong.stdout).not.toContain('root-secret-line-9931');

    const zero = await runCli(['prune', '--older-than', '0d'], env);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--older-than must be at least 1h: 0d would delete');

    const replay = await runCli(['quarantine', 'online-retail-invoices', '--replay', '--run-key', '2010-12-01'], env);
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain("does not load past bad rows (invalidRows: 'fail'): fix the source and rerun the run key (idem run online-retail-invoices --date 2010-12-01)");
    expect(replay.stderr).not.toContain('--force');
  });

  it('a source file the user idem runs as may not read exits 2 with one sentence, for --date and --file (run as uid 65534)', async () => {
    // The project is world-readable; the database and the sources are in a directory nobody may write.
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-unreadable-'));
    chmodSync(dir, 0o777);
    const env = { HOME: dir, DATABASE_URL: `sqlite:${path.join(dir, 'idem.sqlite3')}`, IDEM_DESTINATIONS: JSON.stringify({ 'sandbox-accounting': { url: 'http://127.0.0.1:9' } }) };
    expect((await runCliAsNobody(['migrate'], env)).code).toBe(0);
    const sources = path.join(dir, 'sources');
    mkdirSync(sources);
    const file = path.join(sources, '2010-12-01.csv');
    copyFileSync(path.join(PROJECT_DIR, 'fixtures/online-retail/2010-12-01.csv'), file);
    chmodSync(file, 0o000);
    const sentence = `source file ${file} cannot be read: permission denied (EACCES); give the user idem runs as (uid ${NOBODY}) read access to the file and search access to its directories`;
    for (const args of [['--date', '2010-12-01'], ['--file', file]]) {
      const result = await runCliAsNobody(['run', 'online-retail-invoices', ...args], { ...env, IDEM_SOURCE_DIR: sources });
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(sentence);
      // Not the system call's own words ("EACCES: permission denied, open '…'"), which name the file twice.
      expect(result.stderr).not.toContain("EACCES: permission denied, open");
      if (args[0] === '--file') expect(result.stderr).toBe(`idem: ${sentence}\n`);
      else expect(JSON.parse(result.stderr.split('\n').find((line) => line.includes('"stage":"summary"'))!)).toMatchObject({ exitCode: 2, msg: `run failed: ${sentence}` });
    }
    // A source directory it may not search is no missing file: the pipeline's missing: 'skip' would have skipped the date, exit 0.
    chmodSync(file, 0o644);
    chmodSync(sources, 0o700);
    const hidden = await runCliAsNobody(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_SOURCE_DIR: sources });
    expect(hidden.code, hidden.stderr).toBe(2);
    expect(hidden.stderr).toContain(`source file ${file} cannot be read: permission denied (EACCES)`);
  });

  it('--file pointing at a directory: exit 2 naming the path', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-dir-'));
    const result = await runCli(['run', 'online-retail-invoices', '--file', dir], { DATABASE_URL: `sqlite:${path.join(dir, 'x.sqlite3')}` });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`idem: --file must be a file, and ${dir} is a directory or another kind of file\n`);
  });
});

describe('file names an operator did not choose', () => {
  it('a newline in a --file name works with --workers 2: the idem work child takes the same run key', async () => {
    const world = await openFaultWorld('sqlite', 'newline-file');
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'idem-newline-'));
      const file = path.join(dir, 'invoices\n2010-12-01.csv');
      copyFileSync(path.join(PROJECT_DIR, 'fixtures/online-retail/2010-12-01.csv'), file);
      const result = await runCli(['run', 'online-retail-invoices', '--file', file, '--workers', '2'], world.env());
      expect(result.code, result.stderr.slice(-2000)).toBe(0);
      expect(world.sandbox.state.records()).toHaveLength(143);
      // The worker ran (no usage error on the run key), and both processes ended well.
      const workerSummary = result.logs.find((l) => l.stage === 'summary' && typeof l.worker === 'string' && l.worker.startsWith('worker'));
      expect(workerSummary).toMatchObject({ exitCode: 0 });
    } finally {
      await world.close();
    }
  });
});
