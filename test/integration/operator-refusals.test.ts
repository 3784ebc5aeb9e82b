import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';

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
    for (const f of [file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f))) expect((statSync(f).mode & 0o777).toString(8), f).toBe('600');
    expect(existsSync(file)).toBe(true);
  });

  it('--file pointing at a directory: exit 2 naming the path', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-dir-'));
    const result = await runCli(['run', 'online-retail-invoices', '--file', dir], { DATABASE_URL: `sqlite:${path.join(dir, 'x.sqlite3')}` });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`idem: --file must be a file, and ${dir} is a directory or another kind of file\n`);
  });
});
