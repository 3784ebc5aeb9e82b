import { createHash } from 'node:crypto';
import { statSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { UnreadableFileError } from '../errors/unreadable-file-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import { parseBusinessDate } from './business-date.ts';

/**
 * What one run is for: a business date (`YYYY-MM-DD` in the pipeline's time zone) or a file.
 * `value` is what `job_runs.run_key` holds.
 */
export type RunKey =
  | { readonly kind: 'date'; readonly value: string; readonly businessDate: string }
  | {
      readonly kind: 'file';
      readonly value: string;
      readonly file: string;
      /**
       * The SHA-256 (hex) of the content the run key names, as {@link fileRunKey} hashed it: a
       * run's read of the file must read these bytes. None for a run key taken from its text
       * (a quarantine replay reads a file of its own).
       */
      readonly sha256?: string;
    };

/** A business-date run key. */
export function dateRunKey(businessDate: string): RunKey {
  return { kind: 'date', value: businessDate, businessDate };
}

/** A file run key's value, as {@link fileRunKey} writes it. */
const FILE_RUN_KEY = /^file:.+@sha256:[0-9a-f]{16}$/s; // s: a file name may hold a newline

/**
 * A run key typed by an operator (`idem work --run-key`), as `idem status` shows it: a business
 * date `YYYY-MM-DD` or a file run key `file:NAME@sha256:HEX`.
 * @throws UsageError for anything else (a typo must not wait for a run that can never come).
 */
export function parseRunKey(value: string): string {
  if (FILE_RUN_KEY.test(value)) return value;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return parseBusinessDate(value, '--run-key');
  throw new UsageError(`--run-key must be a business date YYYY-MM-DD or a file run key file:NAME@sha256:HEX, as idem status shows it (got "${value}")`);
}

/**
 * Bytes per read while hashing a file: reads this large hash a file faster than a stream's 64 KiB
 * default. One buffer is read into again and again: a stream allocates one per read, and a large
 * file's many buffers raise the process's resident memory for the rest of the run (freed, but
 * kept by the C allocator).
 */
const HASH_CHUNK_BYTES = 1024 * 1024;

/**
 * A file run key: `file:<name>@sha256:<first 16 hex>` of the whole content, so the same bytes run
 * twice are one run key and a corrected file with the same name is a new one. Every byte is
 * hashed on every call (no cache keyed by size or mtime: a file rewritten within one mtime tick
 * must still get a new key). The run's own read hashes the bytes it parses again and compares
 * (`UnchangedFileCheck`): a file still being written is not loaded under this key.
 * @throws UsageError when the file does not exist or is no file; UnreadableFileError when this
 *   process may not read it.
 */
export async function fileRunKey(file: string): Promise<RunKey> {
  const absolute = path.resolve(file);
  let stats: Stats;
  try {
    stats = statSync(absolute);
  } catch (error) {
    throw UnreadableFileError.of(absolute, error) ?? new UsageError(`--file does not exist (got "${file}")`);
  }
  if (!stats.isFile()) throw new UsageError(`--file must be a file, and ${absolute} is a directory or another kind of file`);
  const sha256 = await sha256File(absolute);
  return { kind: 'file', value: `file:${path.basename(absolute)}@sha256:${sha256.slice(0, 16)}`, file: absolute, sha256 };
}

/** SHA-256 of a file's bytes, in hex (`fileRunKey`, and a date run's file identity). @throws UnreadableFileError when this process may not read it. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
  const handle = await open(file).catch((error: unknown) => {
    throw UnreadableFileError.of(file, error) ?? error;
  });
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}
