import type { BigIntStats } from 'node:fs';

/**
 * One version of a file, as `fstat`/`stat` tell it: which file (device and inode), its size and
 * its modification time (ns). A producer appending to a file changes its size and mtime; one
 * that renames another file into its place changes its inode.
 */
export interface FileVersion {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
}

/** The version of a file from its `stat` (with `{ bigint: true }`, so mtime keeps its nanoseconds). */
export function fileVersionOf(stats: BigIntStats): FileVersion {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs };
}

/**
 * How `after` differs from `before`, in words for an operator (`its size went from 191826 to
 * 275001 bytes`), or undefined when it is the same version. `after` undefined: the file is gone
 * from its path.
 */
export function fileVersionChange(before: FileVersion, after: FileVersion | undefined): string | undefined {
  if (after === undefined) return 'it was removed or renamed away';
  if (after.dev !== before.dev || after.ino !== before.ino) return `another file was put in its place (inode ${before.ino} became ${after.ino})`;
  if (after.size !== before.size) return `its size went from ${before.size} to ${after.size} bytes`;
  if (after.mtimeNs !== before.mtimeNs) return 'it was written to (its modification time changed, its size did not)';
  return undefined;
}
