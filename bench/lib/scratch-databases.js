// Throwaway databases for one benchmark run: created on demand, every one dropped by dropAll()
// (called from the runner's finally block and signal handlers).
import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Server URLs (no database), from BENCH_PG_URL / BENCH_MYSQL_URL. */
export const SERVERS = {
  postgres: (process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, ''),
  mariadb: (process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306').replace(/\/+$/, ''),
};

/** Runs one SQL text through psql on `url` (setup, checks, cleanup; never timed). Returns trimmed unaligned output. */
export function psql(url, sql) {
  return execFileSync('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** mysql client arguments for a `mysql://user[:password]@host:port[/db]` URL. */
export function mysqlArgs(url) {
  const u = new URL(url);
  const args = ['--protocol=TCP', '-h', u.hostname, '-P', u.port || '3306', '-u', decodeURIComponent(u.username || 'root')];
  if (u.password) args.push(`-p${decodeURIComponent(u.password)}`);
  const db = u.pathname.replace(/^\//, '');
  if (db) args.push('-D', db);
  return args;
}

/** Runs one SQL text through the mysql client on `url` (untimed). Returns trimmed tab-separated output without column names. */
export function mysql(url, sql) {
  return execFileSync('mysql', [...mysqlArgs(url), '-N', '-B', '-e', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The dialects a scratch database can be made for. */
export const DIALECTS = ['postgres', 'mariadb', 'sqlite'];

/** Creates and tracks scratch databases named `idem_bench_<pid>_<name>`. */
export class ScratchDatabases {
  #created = [];
  #tmp;
  #log;

  /** @param {string} tmp the run's temp dir (SQLite files go there) @param {(m: string) => void} log */
  constructor(tmp, log) {
    this.#tmp = tmp;
    this.#log = log;
  }

  /**
   * Creates an empty database and returns its `DATABASE_URL` (`sqlite:/abs/file` for SQLite).
   * @param {'postgres' | 'mariadb' | 'sqlite'} dialect @param {string} name a short suffix, [a-z0-9_]
   */
  create(dialect, name) {
    const db = `idem_bench_${process.pid}_${name}`;
    switch (dialect) {
      case 'postgres':
        psql(`${SERVERS.postgres}/postgres`, `create database "${db}"`);
        this.#created.push({ dialect, db });
        return `${SERVERS.postgres}/${db}`;
      case 'mariadb':
        mysql(SERVERS.mariadb, `create database \`${db}\` character set utf8mb4`);
        this.#created.push({ dialect, db });
        return `${SERVERS.mariadb}/${db}`;
      case 'sqlite':
        // Removed with the temp dir.
        return `sqlite:${path.join(this.#tmp, `${db}.sqlite3`)}`;
      default:
        throw new Error(`unknown dialect ${dialect}`);
    }
  }

  /** Drops every database created so far; logs (never throws) a failure to drop. */
  dropAll() {
    for (const { dialect, db } of this.#created.splice(0)) {
      try {
        if (dialect === 'postgres') psql(`${SERVERS.postgres}/postgres`, `drop database if exists "${db}" with (force)`);
        else mysql(SERVERS.mariadb, `drop database if exists \`${db}\``);
        this.#log(`dropped ${dialect} database ${db}`);
      } catch (error) {
        this.#log(`could not drop ${dialect} database ${db}: ${error.message}`);
      }
    }
  }
}
