// A description of the machine a benchmark ran on, for bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { SERVERS, mysql, psql } from './scratch-databases.js';

const attempt = (fn) => {
  try {
    return fn();
  } catch {
    return 'unknown';
  }
};

/**
 * CPU model and count, RAM, Node, PostgreSQL and MariaDB server versions, kernel.
 * @returns {{ cpu: string, nproc: string, memory: string, node: string, postgres: string, mariadb: string, kernel: string }}
 */
export function describeMachine() {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    nproc: attempt(() => execFileSync('nproc', { encoding: 'utf8' }).trim()),
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    postgres: attempt(() => psql(`${SERVERS.postgres}/postgres`, 'show server_version')),
    mariadb: attempt(() => mysql(SERVERS.mariadb, 'select version()')),
    kernel: `${os.type()} ${os.release()}`,
  };
}

/** The 1, 5 and 15 minute load averages, as "a b c". */
export function loadAverage() {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}
