import { DeletionsHeldError } from '../errors/deletions-held-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { DeletionCounts } from '../upsert/record-deletions-sql.ts';

/** The share of a scope's live records a read may mark deleted unless the source says otherwise. */
export const DEFAULT_MAX_DELETE_SHARE = 0.1;

const percent = (share: number): string => `${Math.round(share * 1000) / 10}%`;

/**
 * The delete guard of a full snapshot: the error that stops the run (exit 3, before anything is
 * written) when the read would mark more than `maxDeleteShare` of a scope's live records deleted,
 * or holds no records while the target holds live ones, unless `allowDeletes` is exactly the
 * number it would mark deleted. A truncated file, an API that served its first page only, and an
 * export with a broken filter all look like that.
 * @returns undefined when the run may go on.
 */
export function deletionsHeld(pipeline: PipelineDefinition, counts: DeletionCounts, allowDeletes: number | undefined): DeletionsHeldError | undefined {
  const maxShare = pipeline.source.maxDeleteShare ?? DEFAULT_MAX_DELETE_SHARE;
  const absent = counts.scopes.reduce((sum, scope) => sum + scope.absent, 0);
  const column = pipeline.source.snapshotScope;
  const over = counts.scopes.filter((scope) => scope.live > 0 && scope.absent / scope.live > maxShare);
  const empty = counts.staged === 0 && counts.liveInSource > 0;
  if (!empty && over.length === 0) return undefined;
  if (allowDeletes === absent) return undefined;
  const where = (scope: (typeof counts.scopes)[number]): string => (column === undefined ? '' : ` of ${column} ${JSON.stringify(scope.scope)}`);
  const why = empty
    ? `the read holds no records, and the target holds ${counts.liveInSource} live record(s) of ${pipeline.sourceSystem}`
    : `the read would mark ${over.map((s) => `${s.absent} of ${s.live} live record(s)${where(s)} deleted (${percent(s.absent / s.live)})`).join(', ')}, over the source's maxDeleteShare of ${percent(maxShare)}`;
  const mismatch = allowDeletes === undefined ? '' : ` (--allow-deletes ${allowDeletes} does not match: it must be the count, ${absent})`;
  return new DeletionsHeldError(
    absent,
    `pipeline ${pipeline.name}: ${why}; nothing was written${mismatch}. A cut file, a first page only or a broken export filter looks like this: ` +
      `check the source, and if ${absent} record(s) really left it, run again with --allow-deletes ${absent}`,
  );
}
