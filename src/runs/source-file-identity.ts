import { existsSync, statSync } from 'node:fs';
import type { Database } from '../db/database.ts';
import type { JobRunAttempt } from './job-run.ts';
import { sha256File } from './run-key.ts';

/** A file's identity: its size in bytes and the SHA-256 of its bytes (hex), as a `--file` run key hashes it. */
export interface SourceFileIdentity {
  readonly bytes: number;
  readonly sha256: string;
}

/** The identity of `file`, or undefined when it is no regular file (missing, say). Reads every byte. */
export async function sourceFileIdentity(file: string): Promise<SourceFileIdentity | undefined> {
  if (!existsSync(file) || !statSync(file).isFile()) return undefined;
  // Size after the hash: a file that grows while it is hashed then differs from what was read.
  const sha256 = await sha256File(file);
  return { bytes: statSync(file).size, sha256 };
}

/** Records the identity of the file `attempt` reads in its `job_runs` row. */
export async function recordSourceFileIdentity(db: Database, attempt: JobRunAttempt, identity: SourceFileIdentity): Promise<void> {
  await db.knex('job_runs').where({ id: attempt.id, attempts: attempt.attempt }).update({ source_bytes: identity.bytes, source_sha256: identity.sha256 });
}

/** The identity of the file the run of a job and run key last read, if it recorded one. */
export async function findSourceFileIdentity(db: Database, jobName: string, runKey: string): Promise<SourceFileIdentity | undefined> {
  const row = (await db.knex('job_runs').where({ job_name: jobName, run_key: runKey }).first('source_bytes', 'source_sha256')) as
    | { source_bytes: number | string | null; source_sha256: string | null }
    | undefined;
  return row?.source_sha256 ? { bytes: Number(row.source_bytes), sha256: row.source_sha256 } : undefined;
}
