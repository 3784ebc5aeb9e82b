import type { Database } from '../db/database.ts';
import { canonicalValue } from '../column/canonical-value.ts';
import { column, type ColumnSpec } from '../column/column-type.ts';
import { valueTypeMismatch } from '../column/value-type-mismatch.ts';
import { PipelineError } from '../errors/pipeline-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { PipelineRecord } from '../pipeline/pipeline-record.ts';
import { rowHashOfJson } from '../pipeline/row-hash.ts';
import { DELETED_VERSION, deletesRecords } from '../pipeline/record-deletions.ts';
import type { QuarantinedRow } from '../source/quarantined-row.ts';
import { LOOKUP_KEYS, type ChangeDetection } from './change-detection.ts';

/**
 * Staging columns before the business columns, in load order, with the specs
 * `createPipelineTables` creates them with (typed bulk loads declare them).
 */
const FRAMEWORK_COLUMNS: readonly (readonly [string, ColumnSpec])[] = [
  ['seq', column.integer()],
  ['run_key', column.text({ maxLength: 200 })],
  ['source_system', column.text({ maxLength: 200 })],
  ['source_reference', column.text({ maxLength: 200 })],
  ['source_line', column.integer({ nullable: true })],
  ['row_hash', column.text({ maxLength: 64 })],
];

/** The staging columns the duplicate-key rule, the upsert and the ledger enqueue join or filter on. */
const STAGING_KEY_COLUMNS = ['seq', 'source_system', 'source_reference', 'row_hash'];

/** Options of {@link stageRecords}. */
export interface StageOptions {
  readonly runKey: string;
  /** Rows per bulk-load batch, at most. The outcome never depends on it. @defaultValue 2000 */
  readonly batchRows?: number;
  /**
   * Characters of values per batch, at most (about bytes for ASCII data): bounds memory when
   * records are large (an invoice with its lines), whatever `batchRows` says. Small enough that
   * a batch's values die young: a batch that outlives several scavenges is promoted to V8's old
   * generation and piles up there until a full GC, which raises peak memory without making the
   * load any faster (check with `node --trace-gc-nvp` before raising it). @defaultValue 64 KiB
   */
  readonly batchChars?: number;
  /** The source, for quarantine entries of records whose values break their column's rule. */
  readonly source: string;
  readonly quarantine: (row: QuarantinedRow) => Promise<void>;
  /** Called after each batch that fills is loaded, or with `changes`, after each look-up's rows are (progress, fault injection). */
  readonly afterBatch?: (stagedSoFar: number) => Promise<void>;
  /**
   * Change detection before staging: records the target already holds as they are are left out
   * (see `ChangeDetection`). Without it every record is staged.
   */
  readonly changes?: ChangeDetection;
}

/**
 * The pipeline's own mistakes in a record (see `PipelineError`): a `values` key that is not a
 * declared column (a typo would otherwise blank the column it meant), or a value whose
 * JavaScript type its column never takes.
 */
function pipelineMistake(pipeline: PipelineDefinition, declared: ReadonlySet<string>, record: PipelineRecord): PipelineError | undefined {
  const where = `pipeline "${pipeline.name}": toRecords gave record ${JSON.stringify(record.sourceReference)}${record.line === undefined ? '' : ` (line ${record.line})`}`;
  if (record.deleted === true && !deletesRecords(pipeline)) {
    return new PipelineError(`${where} deleted: true, and its source declares neither snapshot: 'full' nor a tombstone (a pipeline that deletes records declares one)`);
  }
  for (const key in record.values) {
    if (!declared.has(key)) {
      return new PipelineError(`${where} a values key "${key}" that is not a declared column; declared columns: ${[...declared].join(', ')}`);
    }
  }
  for (const name of declared) {
    const spec = pipeline.columns[name]!;
    const mismatch = valueTypeMismatch(spec, record.values[name]);
    if (mismatch) return new PipelineError(`${where} column ${name}: expected ${mismatch.expected}, received ${mismatch.received}`);
  }
  return undefined;
}

/**
 * Replaces the pipeline's staging table with this run's records (less those `changes` leaves
 * out): empties it (`emptyStaging`), bulk-loads by the dialect's fast path, then refreshes the planner's statistics of its key
 * columns (`refreshStatistics`). Each record gets its canonical values, its
 * row hash and `seq`, its position in the source (what `last-wins` means by "last").
 * The first record is checked before staging is touched.
 * @returns the number of records staged.
 * @throws PipelineError for a record with a `values` key that is not a declared column, or a
 *   value of a JavaScript type its column never takes (staging is left empty). A value of the
 *   right type that breaks its column's rule (too many decimals, null where not nullable) is
 *   quarantined instead.
 */
export async function stageRecords(
  db: Database,
  pipeline: PipelineDefinition,
  records: AsyncIterable<PipelineRecord>,
  options: StageOptions,
): Promise<number> {
  const iterator = records[Symbol.asyncIterator]();
  try {
    return await stageFrom(db, pipeline, iterator, options);
  } finally {
    // A load that stops before the records end (a mistake, a failed load, a stop) ends their
    // read too: the source's file is closed, and a reading thread (IDEM_READ_THREADS=2) ends.
    // What ending it throws would hide why the load stopped.
    await iterator.return?.().catch(() => undefined);
  }
}

async function stageFrom(db: Database, pipeline: PipelineDefinition, iterator: AsyncIterator<PipelineRecord>, options: StageOptions): Promise<number> {
  const { adapter, knex } = db;
  const columns = Object.entries(pipeline.columns);
  const batchRows = options.batchRows ?? 2000;
  const lookupRows = Math.min(LOOKUP_KEYS, batchRows);
  const batchChars = options.batchChars ?? 64 * 1024;
  const declared = new Set(columns.map(([name]) => name));
  // The first record is read and checked before staging is emptied: a pipeline whose code is
  // wrong fails before any write.
  const first = await iterator.next();
  if (!first.done) {
    const mistake = pipelineMistake(pipeline, declared, first.value);
    if (mistake) throw mistake;
  }
  await adapter.emptyStaging(knex, pipeline.tables.staging);

  // Driver values are the adapter's, except a json column's: every dialect stores its JSON text
  // (see `ColumnType`), which the row hash covers too, so each document is serialised once.
  const isJson = columns.map(([, spec]) => spec.type === 'json');
  const width = FRAMEWORK_COLUMNS.length + columns.length;

  const charsOf = (row: readonly unknown[]): number => {
    let chars = 0;
    for (const value of row) chars += typeof value === 'string' ? value.length : 8;
    return chars;
  };

  let seq = 0;
  const valuesJson: string[] = new Array<string>(columns.length);
  async function* all(): AsyncGenerator<PipelineRecord> {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  /**
   * Each record as its staging row: framework columns (`seq` numbering the rows in source order),
   * then the driver values of its canonical values. A record with a value that breaks its
   * column's rule is quarantined instead.
   */
  async function* stagingRows(): AsyncGenerator<unknown[]> {
    for await (const record of all()) {
      const row = new Array<unknown>(width);
      const mistake = pipelineMistake(pipeline, declared, record);
      if (mistake) throw mistake;
      try {
        const reference = record.sourceReference as unknown;
        if (typeof reference !== 'string' || reference.length === 0 || reference.length > 200) {
          throw new TypeError(`sourceReference must be a string of 1..200 characters (got ${JSON.stringify(reference)})`);
        }
        for (let i = 0; i < columns.length; i++) {
          const [name, spec] = columns[i]!;
          const canonical = canonicalValue(name, spec, record.values[name], pipeline.timeZone);
          const json = JSON.stringify(canonical);
          if (json === undefined) throw new TypeError(`column ${name}: must be a JSON value (got ${typeof canonical})`);
          valuesJson[i] = json;
          row[FRAMEWORK_COLUMNS.length + i] = isJson[i] && canonical !== null ? json : adapter.toDriverValue(spec, canonical);
        }
      } catch (error) {
        const reason = `${pipeline.sourceSystem} ${record.sourceReference}: ${(error as Error).message}`;
        await options.quarantine({ source: options.source, line: record.line, reason, raw: undefined });
        continue;
      }
      seq += 1;
      row[0] = seq;
      row[1] = options.runKey;
      row[2] = pipeline.sourceSystem;
      row[3] = record.sourceReference;
      row[4] = record.line ?? null;
      row[5] = record.deleted === true ? DELETED_VERSION : rowHashOfJson(pipeline.sourceSystem, record.sourceReference, valuesJson);
      yield row;
    }
  }
  /** Rows in batches of at most `batchRows` rows and about `batchChars` characters; `afterFull` follows each batch that fills. */
  async function* batchesOf(rows: AsyncIterable<unknown[]> | Iterable<unknown[]>, afterFull?: () => Promise<void> | undefined): AsyncGenerator<unknown[][]> {
    let batch: unknown[][] = [];
    let chars = 0;
    for await (const row of rows) {
      batch.push(row);
      chars += charsOf(row);
      if (batch.length >= batchRows || chars >= batchChars) {
        yield batch;
        batch = [];
        chars = 0;
        await afterFull?.();
      }
    }
    if (batch.length > 0) yield batch;
  }
  /**
   * The rows, less those change detection leaves out, a look-up at a time: `LOOKUP_KEYS` rows, or
   * sooner, a batch's rows (a run never holds more rows unwritten than `batchRows` asks) or values
   * that would outgrow a few batches.
   */
  async function* changedRows(changes: ChangeDetection): AsyncGenerator<unknown[][]> {
    let pending: unknown[][] = [];
    let pendingChars = 0;
    for await (const row of stagingRows()) {
      pending.push(row);
      pendingChars += charsOf(row);
      if (pending.length >= lookupRows || pendingChars >= 8 * batchChars) {
        yield await changes.changed(pending);
        pending = [];
        pendingChars = 0;
      }
    }
    if (pending.length > 0) yield await changes.changed(pending);
  }

  const loaded = [...FRAMEWORK_COLUMNS, ...columns];
  const load = (rows: AsyncIterable<unknown[][]>): Promise<number> =>
    adapter.bulkLoad(knex, pipeline.tables.staging, loaded.map(([name]) => name), rows, loaded.map(([, spec]) => spec));
  let staged = 0;
  try {
    if (!options.changes) staged = await load(batchesOf(stagingRows(), () => options.afterBatch?.(seq)));
    // A load holds its pooled connection while it pulls batches, and change detection's look-ups
    // need one too: each look-up's rows are then a load of their own (one `COPY` on PostgreSQL,
    // however many batches they make), its look-ups run between loads, and a run keeps to one
    // pooled connection at a time besides its lock. Through a pooler in session mode each
    // connection is a server connection: two runs in a pool of 3 deadlocked. Each look-up is a
    // stop boundary, whether or not it leaves rows to load (a stop must not wait for the end of
    // a rerun that changes nothing).
    else {
      for await (const rows of changedRows(options.changes)) {
        if (rows.length > 0) staged += await load(batchesOf(rows));
        await options.afterBatch?.(seq);
      }
    }
  } catch (error) {
    // Batches before the mistake may be loaded: leave staging as empty as it was before the run.
    if (error instanceof PipelineError) await adapter.emptyStaging(knex, pipeline.tables.staging);
    throw error;
  }
  await adapter.refreshStatistics(knex, pipeline.tables.staging, STAGING_KEY_COLUMNS);
  return staged;
}

