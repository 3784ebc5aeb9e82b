import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '../errors/usage-error.ts';

/**
 * What one run is for: a business date (`YYYY-MM-DD` in the pipeline's time zone) or a file.
 * `value` is what `job_runs.run_key` holds.
 */
export type RunKey =
  | { readonly kind: 'date'; readonly value: string; readonly businessDate: string }
  | { readonly kind: 'file'; readonly value: string; readonly file: string };

/** A business-date run key. */
export function dateRunKey(businessDate: string): RunKey {
  return { kind: 'date', value: businessDate, businessDate };
}

/**
 * A file run key: `file:<name>@sha256:<first 16 hex>` of the content, so the same file run twice
 * is one run key and a corrected file with the same name is a new one.
 * @throws UsageError when the file does not exist.
 */
export async function fileRunKey(file: string): Promise<RunKey> {
  const absolute = path.resolve(file);
  if (!existsSync(absolute)) throw new UsageError(`--file does not exist (got "${file}")`);
  const hash = createHash('sha256');
  await pipeline(createReadStream(absolute), hash);
  return { kind: 'file', value: `file:${path.basename(absolute)}@sha256:${hash.digest('hex').slice(0, 16)}`, file: absolute };
}
