import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A small real file system of its own (tmpfs): writes past its size fail with ENOSPC. */
export interface Tmpfs {
  readonly dir: string;
  /** Gives it `size` (e.g. `64m`), keeping its files: the space an operator frees. */
  resize(size: string): void;
  /** Unmounts it and removes its mount point. */
  close(): void;
}

/**
 * Mounts a tmpfs of `size` (`mount -t tmpfs -o size=…`, so root or CAP_SYS_ADMIN) on a fresh
 * directory, owned by `owner` (`uid:gid`) when given (a database server's user).
 */
export function mountTmpfs(size: string, owner?: { uid: number; gid: number }): Tmpfs {
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-tmpfs-'));
  const ownership = owner ? `,uid=${owner.uid},gid=${owner.gid},mode=0700` : '';
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${ownership}`, 'tmpfs', dir]);
  return {
    dir,
    resize: (to) => void execFileSync('mount', ['-o', `remount,size=${to}`, dir]),
    close() {
      execFileSync('umount', [dir]);
      rmdirSync(dir);
    },
  };
}

/** Why a tmpfs cannot be mounted here (not root, no CAP_SYS_ADMIN), or undefined when it can. */
export function tmpfsUnavailableReason(): string | undefined {
  try {
    mountTmpfs('64k').close();
    return undefined;
  } catch (error) {
    return `no tmpfs can be mounted here (${(error as Error).message.split('\n')[0]})`;
  }
}
