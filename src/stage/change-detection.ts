import type { Queryable } from '../db/queryable.ts';
import { LEDGER_TABLE } from '../ledger/ledger-item.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { deletesRecords } from '../pipeline/record-deletions.ts';

/**
 * Records left out of staging by one pass, at most, each remembered by its reference (about 70
 * bytes): past it every record is staged, so memory stays bounded whatever the run's size (the
 * bound `groupRows` keeps for the keys it remembers).
 */
const MAX_LEFT_OUT = 250_000;

/** References per look-up: bound parameters stay under SQL Server's 2,100 and every other limit. */
export const LOOKUP_KEYS = 500;

/** Position of the reference and the row hash in a staging row (see `stageRecords`). */
const REFERENCE = 3;
const ROW_HASH = 5;

/**
 * Change detection before staging: of the records a pass reads, the ones whose content the
 * target already holds are left out of staging, so a rerun that changes 1% of a file stages and
 * upserts 1% of it. A record is left out only when everything the set-based upsert and the ledger
 * enqueue would do for it is nothing:
 * - the target holds its reference with this row hash (and, for a pipeline that deletes records,
 *   live: a deleted record that comes back is staged);
 * - at every destination, the post ledger's newest live version of it is this row hash (so a
 *   destination added since its last change still gets it, as `enqueueLedgerItems` decides).
 *
 * The target's `row_hash` is trusted: a row whose values were edited in the target by hand, its
 * row hash left as it was, is left alone (`--force-reconcile` stages every record, and its upsert
 * writes the file's values back).
 *
 * The duplicate-key rule judges the whole run: a reference left out that occurs again in the
 * run (staged, or left out twice) makes `leftOutKeyRecurs` true, and the caller stages the pass
 * again without detection, so the rule sees every record.
 */
export class ChangeDetection {
  readonly #q: Queryable;
  readonly #pipeline: PipelineDefinition;
  readonly #leftOut = new Set<string>();
  #recurs = false;

  constructor(q: Queryable, pipeline: PipelineDefinition) {
    this.#q = q;
    this.#pipeline = pipeline;
  }

  /**
   * Whether detection can leave records of this pipeline's run out: never for a full snapshot,
   * whose absences are what staging lacks, nor while the target holds no record of its source
   * system (a first import: every look-up would find nothing).
   */
  static async applies(q: Queryable, pipeline: PipelineDefinition): Promise<boolean> {
    if (pipeline.source.snapshot === 'full') return false;
    return (await q.knex(pipeline.tables.target).first('source_reference').where('source_system', pipeline.sourceSystem)) !== undefined;
  }

  /** Records left out so far. */
  get unchanged(): number {
    return this.#leftOut.size;
  }

  /**
   * The staging rows (as `stageRecords` builds them) to stage: `rows` without those the target and
   * the ledger hold as they are, in order. At most {@link LOOKUP_KEYS} rows per call.
   */
  async changed(rows: readonly unknown[][]): Promise<unknown[][]> {
    const held = await this.#heldVersions(rows.map((row) => row[REFERENCE] as string));
    const changed: unknown[][] = [];
    for (const row of rows) {
      const reference = row[REFERENCE] as string;
      if (this.#leftOut.has(reference)) {
        this.#recurs = true;
        changed.push(row);
      } else if (held.get(reference) === row[ROW_HASH] && this.#leftOut.size < MAX_LEFT_OUT) {
        this.#leftOut.add(reference);
      } else {
        changed.push(row);
      }
    }
    return changed;
  }

  /**
   * After the pass is staged: whether a reference it left out occurs more than once in the run
   * (left out twice, or also staged), so the duplicate-key rule would not see all its records.
   */
  async leftOutKeyRecurs(): Promise<boolean> {
    if (this.#recurs) return true;
    const { knex } = this.#q;
    const { staging } = this.#pipeline.tables;
    const references = [...this.#leftOut];
    for (let i = 0; i < references.length; i += LOOKUP_KEYS) {
      const found = await knex(staging)
        .first('source_reference')
        .where('source_system', this.#pipeline.sourceSystem)
        .whereIn('source_reference', references.slice(i, i + LOOKUP_KEYS));
      if (found !== undefined) return true;
    }
    return false;
  }

  /**
   * The row hash of each of `references` the target holds (live, for a pipeline that deletes
   * records) whose newest live ledger version at every destination is that same hash.
   */
  async #heldVersions(references: readonly string[]): Promise<Map<string, string>> {
    const { knex } = this.#q;
    const pipeline = this.#pipeline;
    const query = knex(`${pipeline.tables.target} as t`)
      .select('t.source_reference', 't.row_hash')
      .where('t.source_system', pipeline.sourceSystem)
      .whereIn('t.source_reference', references);
    if (deletesRecords(pipeline)) query.whereNull('t.deleted_at');
    for (const destination of pipeline.destinations) {
      // The enqueue's own question (`enqueueLedgerItems`), driven by the target's few rows
      // through the ledger's record index.
      query.whereRaw('coalesce((?), ?) = t.row_hash', [
        knex(`${LEDGER_TABLE} as l`)
          .select('l.row_hash')
          .whereRaw("l.job_name = ? and l.destination = ? and l.source_system = t.source_system and l.source_reference = t.source_reference and l.status <> 'superseded'", [pipeline.name, destination.name])
          .orderBy('l.id', 'desc')
          .limit(1),
        '',
      ]);
    }
    const rows = (await query) as { source_reference: string; row_hash: string }[];
    return new Map(rows.map((row) => [row.source_reference, row.row_hash]));
  }
}
