import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closedPort } from './closed-port.ts';

/** Debian's PgBouncer binary (installed by .ci/run). */
export const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';

/** A PgBouncer in front of the local PostgreSQL, started by a test. */
export interface PgBouncer {
  /** `postgres://postgres@127.0.0.1:<port>/<database>`: the same database, through the pooler. */
  urlFor(databaseUrl: string): string;
  /** PgBouncer's own log, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts Debian's PgBouncer on a free loopback port in `mode`, forwarding every database name to
 * the local PostgreSQL (trust auth), with `poolSize` server connections per database and user,
 * as the probe in issue 28 measured it (1.18, a pool of 3). Runs as the `postgres` user, since
 * PgBouncer refuses to run as root. Resolves once it accepts connections.
 */
export async function startPgBouncer(mode: 'transaction' | 'session', poolSize = 3): Promise<PgBouncer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await closedPort();
  const logFile = path.join(dir, 'pgbouncer.log');
  writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      '* = host=127.0.0.1 port=5432',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `pool_mode = ${mode}`,
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      `logfile = ${logFile}`,
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(PGBOUNCER_BIN, ['-u', 'postgres', path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`PgBouncer did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    urlFor(databaseUrl) {
      const url = new URL(databaseUrl);
      url.port = String(port);
      return url.href;
    },
    log: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return stderr;
      }
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
