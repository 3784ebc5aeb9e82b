import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open-database.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

// A new SQLite file is switched to WAL by the first connection idem opens. SQLite refuses that
// switch at once (SQLITE_BUSY, no busy timeout) while another connection writes to the file in
// rollback-journal mode, as when two `idem migrate` open a new database together: seen in CI as
// `idem: SqliteError: database is locked` from the second (test/integration/migrate-race.test.ts).

/** How long the other writer keeps its transaction open, in ms: well inside idem's busy timeout. */
const WRITER_HOLDS_MS = 300;

describe('sqlite: switching a new database to WAL while another connection writes to it', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'idem-wal-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits for the writer instead of failing with SQLITE_BUSY, and leaves the file in WAL mode', async () => {
    const file = path.join(dir, 'idem.sqlite3');
    const writer = new BetterSqlite3(file);
    writer.exec('create table t (x integer)');
    expect(writer.pragma('journal_mode', { simple: true })).toBe('delete');
    writer.exec('begin immediate');
    writer.exec('insert into t values (1)');
    const committed = new Promise<void>((resolve) =>
      setTimeout(() => {
        writer.exec('commit');
        resolve();
      }, WRITER_HOLDS_MS),
    );
    const db = await openDatabase({ databaseUrl: `sqlite:${file}`, projectDir: PROJECT_DIR });
    try {
      // The first query opens the pooled connection; its switch to WAL waits for the commit.
      const rows = (await db.knex('t').select('x')) as { x: number }[];
      await committed;
      expect(rows).toEqual([{ x: 1 }]);
      expect((await db.knex.raw('pragma journal_mode')) as unknown).toEqual([{ journal_mode: 'wal' }]);
    } finally {
      await db.close();
      writer.close();
    }
  });
});
