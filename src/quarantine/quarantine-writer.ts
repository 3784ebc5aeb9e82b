import type { Database } from '../db/database.ts';
import { column } from '../column/column-type.ts';
import { boundQuarantineText } from './quarantine-text.ts';
import type { QuarantinedRow } from '../source/quarantined-row.ts';
import { redactSecrets } from '../text/redact-secrets.ts';

const BATCH_ROWS = 500;

/**
 * Collects quarantined rows for one run key and writes them in batches, replacing what an
 * earlier attempt of the same run key quarantined (the table shows the latest attempt). A
 * `raw` or `reason` longer than `QUARANTINE_TEXT_MAX_CHARS` is cut, with a marker that gives its
 * length (`boundQuarantineText`).
 */
export class QuarantineWriter {
  readonly #db: Database;
  readonly #jobName: string;
  readonly #runKey: string;
  readonly #now: unknown;
  #pending: QuarantinedRow[] = [];
  #count = 0;
  #first: QuarantinedRow | undefined;

  constructor(db: Database, jobName: string, runKey: string, nowIso: string) {
    this.#db = db;
    this.#jobName = jobName;
    this.#runKey = runKey;
    this.#now = db.adapter.toDriverValue(column.instant(), nowIso);
  }

  /** Rows quarantined so far in this attempt. */
  get count(): number {
    return this.#count;
  }

  /** The first row quarantined in this attempt, for error messages. */
  get first(): QuarantinedRow | undefined {
    return this.#first;
  }

  /** Deletes what earlier attempts of this run key quarantined. */
  async clear(): Promise<void> {
    await this.#db.knex('quarantine').where({ job_name: this.#jobName, run_key: this.#runKey }).delete();
  }

  async add(quarantined: QuarantinedRow): Promise<void> {
    const row: QuarantinedRow = {
      ...quarantined,
      source: redactSecrets(quarantined.source),
      reason: boundQuarantineText(redactSecrets(quarantined.reason)),
      raw: quarantined.raw === undefined ? undefined : boundQuarantineText(redactSecrets(quarantined.raw)),
    };
    this.#first ??= row;
    this.#count += 1;
    this.#pending.push(row);
    if (this.#pending.length >= BATCH_ROWS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const rows = this.#pending.map((row) => ({
      job_name: this.#jobName,
      run_key: this.#runKey,
      source: row.source,
      line: row.line ?? null,
      reason: row.reason,
      raw: row.raw ?? null,
      created_at: this.#now,
    }));
    this.#pending = [];
    await this.#db.knex.batchInsert('quarantine', rows, 100);
  }
}
