import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { redactUrl } from '../config/redact-url.ts';
import { createDialectAdapter } from '../dialect/create-dialect-adapter.ts';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import { UsageError } from '../errors/usage-error.ts';
import { commandIo } from '../command-io/command-io.ts';

/** A throwaway, empty database. */
export interface ScratchDatabase {
  /** Its `DATABASE_URL`. */
  readonly url: string;
  /** Deletes it (the file, or the database on its server). Safe to call twice. @throws Error (rejects) when the server refuses. */
  drop(): Promise<void>;
}

/** Where a scratch database is made, and what it is called. */
export interface ScratchDatabaseOptions {
  /**
   * A server URL whose database exists and whose user may `create database` (`postgres://…`,
   * `mysql://…`, `mssql://…`); undefined = a SQLite file in a new temp directory.
   */
  readonly serverUrl?: string;
  /** Lowercase letters, digits and `_`: the database is `<prefix>_<12 hex>`, and so is the SQLite file's directory. */
  readonly prefix: string;
}

/**
 * Creates a fresh, empty database: a SQLite file `<tmp>/<name>/idem.sqlite3`, or a database
 * `<name>` on the server of `serverUrl` (its URL is `serverUrl` with that database), where `<name>`
 * is `<prefix>_` and 12 random hex digits. `idem prove` and the test suite make theirs here.
 * @throws UsageError when `serverUrl` names no database server (a `sqlite:` URL, an unknown scheme).
 */
export async function createScratchDatabase(options: ScratchDatabaseOptions): Promise<ScratchDatabase> {
  const name = `${options.prefix}_${randomBytes(6).toString('hex')}`;
  if (options.serverUrl === undefined) {
    const dir = path.join(tmpdir(), name);
    mkdirSync(dir);
    return { url: `sqlite:${path.join(dir, 'idem.sqlite3')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const serverUrl = options.serverUrl;
  // A server URL names no file, so no project directory applies.
  const server = await createDialectAdapter(serverUrl, commandIo().cwd);
  const sql = server.serverDatabaseSql(name);
  if (!sql) throw new UsageError(`a scratch database needs a database server URL (postgres://, mysql://, mariadb://, mssql:// or sqlserver://), not ${redactUrl(serverUrl)}`);
  await runOnServer(server, sql.create);
  let dropped: Promise<void> | undefined;
  return {
    // The database is the URL's first path segment in every server scheme.
    url: serverUrl.replace(/^([a-z]+:\/\/[^/?]*)(\/[^?]*)?/, `$1/${name}`),
    drop: () => (dropped ??= runOnServer(server, sql.drop)),
  };
}

/** Runs one statement on the server of `adapter`, on a connection of its own. */
async function runOnServer(adapter: DialectAdapter, statement: string): Promise<void> {
  const knex = knexFactory(adapter.knexConfig());
  try {
    await knex.raw(statement);
  } finally {
    await knex.destroy();
  }
}
