import type { PipelineDefinition } from './pipeline-definition.ts';

/**
 * The target columns of a pipeline whose records can be deleted at the source (see
 * {@link deletesRecords}): `deleted_at`, the instant of the run that marked the record deleted
 * (null while it is live), and `deleted_in_run_key`, that run's key. `createPipelineTables` gives
 * every new target table both; `idem migrate --make` adds them to an older one.
 */
export const RECORD_DELETION_COLUMNS = ['deleted_at', 'deleted_in_run_key'] as const;

/**
 * Whether the pipeline's records can be marked deleted: its source is a full snapshot of its
 * scope (`snapshot: 'full'`), or declares tombstones (`tombstone`).
 */
export function deletesRecords(pipeline: Pick<PipelineDefinition, 'source'>): boolean {
  return pipeline.source.snapshot === 'full' || pipeline.source.tombstone !== undefined;
}

/**
 * The content version (`row_hash`) of a deletion: a staged tombstone holds it, and so does the
 * post ledger item that posts a record's deletion. A row hash is SHA-256 hex, so it never equals
 * this: the newest ledger version of a deleted record differs from every content it had, and a
 * record that comes back is posted again like any change.
 */
export const DELETED_VERSION = 'deleted';
