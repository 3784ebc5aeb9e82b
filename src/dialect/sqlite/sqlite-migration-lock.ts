import { closeSync, openSync } from 'node:fs';
import type { AppLock, AppLockAttempt } from '../app-lock.ts';

/** Who holds the migration lock of a SQLite database: SQLite's file locks name no owner. */
const HOLDER = 'another idem migrate on this SQLite file';

/**
 * One non-blocking attempt to take the migration lock of the SQLite database in `filename`: an
 * exclusive transaction (`BEGIN EXCLUSIVE`, https://www.sqlite.org/lang_transaction.html) on a
 * file of its own beside the database, `<filename>.migrate-lock`, held on a connection of its
 * own until release. Not the app lock's lease row: that lives in a table the first migration
 * creates, and two `idem migrate` on a new file race exactly there. Not the database file
 * itself: an exclusive transaction on it would keep the migration's own connection from
 * writing. SQLite's lock is the operating system's file lock, so a killed process leaves none
 * behind. An in-memory database is never shared between processes and needs none.
 */
export async function tryAcquireSqliteMigrationLock(filename: string, name: string): Promise<AppLockAttempt> {
  if (filename === ':memory:') return { acquired: true, lock: heldLock(name, () => undefined) };
  const file = `${filename}.migrate-lock`;
  closeSync(openSync(file, 'a', 0o600));
  // Loaded here, not at start-up: only `idem migrate` needs a connection of its own.
  const { default: Database } = await import('better-sqlite3');
  const connection = new Database(file, { timeout: 0 });
  try {
    connection.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    connection.close();
    if (typeof (error as { code?: unknown }).code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY')) return { acquired: false, holder: HOLDER };
    throw error;
  }
  return { acquired: true, lock: heldLock(name, () => connection.close()) };
}

/** The lock held until `release` (closing its connection ends the transaction). */
function heldLock(name: string, close: () => void): AppLock {
  let released = false;
  return {
    name,
    expiresUnlessRenewed: false,
    assertHeld: async () => undefined,
    assertValid: async () => undefined,
    assertValidNow: () => undefined,
    async release() {
      if (released) return;
      released = true;
      close();
    },
  };
}
