import type { Database } from '../db/database.ts';
import { canonicalValue } from '../pipeline/canonical-value.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { PipelineRecord } from '../pipeline/pipeline-record.ts';
import { rowHash } from '../pipeline/row-hash.ts';
import type { QuarantinedRow } from '../quarantine/quarantined-row.ts';

/** Staging columns before the business columns, in load order. */
const FRAMEWORK_COLUMNS = ['seq', 'run_key', 'source_system', 'source_reference', 'source_line', 'row_hash'] as const;

/** Options of {@link stageRecords}. */
export interface StageOptions {
  readonly runKey: string;
  /** Rows per bulk-load batch. The outcome never depends on it. @defaultValue 2000 */
  readonly batchRows?: number;
  /** The source, for quarantine entries of records whose values break their column's rule. */
  readonly source: string;
  readonly quarantine: (row: QuarantinedRow) => Promise<void>;
  /** Called after each batch is loaded (progress, fault injection). */
  readonly afterBatch?: (stagedSoFar: number) => Promise<void>;
}

/**
 * Replaces the pipeline's staging table with this run's records: deletes what an earlier attempt
 * left, then bulk-loads by the dialect's fast path. Each record gets its canonical values, its
 * row hash and `seq`, its position in the source (what `last-wins` means by "last").
 * @returns the number of records staged.
 */
export async function stageRecords(
  db: Database,
  pipeline: PipelineDefinition,
  records: AsyncIterable<PipelineRecord>,
  options: StageOptions,
): Promise<number> {
  const { adapter, knex } = db;
  const columns = Object.entries(pipeline.columns);
  const batchRows = options.batchRows ?? 2000;
  await knex(pipeline.tables.staging).delete();

  async function* batches(): AsyncGenerator<unknown[][]> {
    let batch: unknown[][] = [];
    let seq = 0;
    for await (const record of records) {
      let canonical: unknown[];
      try {
        canonical = columns.map(([name, spec]) => canonicalValue(name, spec, record.values[name]));
      } catch (error) {
        const reason = `${pipeline.sourceSystem} ${record.sourceReference}: ${(error as Error).message}`;
        await options.quarantine({ source: options.source, line: record.line, reason, raw: undefined });
        continue;
      }
      seq += 1;
      batch.push([
        seq,
        options.runKey,
        pipeline.sourceSystem,
        record.sourceReference,
        record.line ?? null,
        rowHash(pipeline.sourceSystem, record.sourceReference, canonical),
        ...columns.map(([, spec], i) => adapter.toDriverValue(spec, canonical[i])),
      ]);
      if (batch.length >= batchRows) {
        yield batch;
        batch = [];
        await options.afterBatch?.(seq);
      }
    }
    if (batch.length > 0) yield batch;
  }

  return adapter.bulkLoad(knex, pipeline.tables.staging, [...FRAMEWORK_COLUMNS, ...columns.map(([name]) => name)], batches());
}
