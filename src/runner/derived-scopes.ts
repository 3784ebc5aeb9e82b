import { canonicalValue } from '../column/canonical-value.ts';
import { UsageError } from '../errors/usage-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { PipelineRecord } from '../pipeline/pipeline-record.ts';
import { businessDateOf } from '../runs/business-date-range.ts';
import type { RunKey } from '../runs/run-key.ts';

/**
 * The scopes (business dates) a run rebuilds each derived table for: a date run key's date; for
 * a file run key, the business dates of the `scopeFrom` column of the records the run read
 * (collected by {@link DerivedScopes.watch} as they stream to staging: a set of dates, memory flat
 * in the file's size).
 */
export class DerivedScopes {
  readonly #pipeline: PipelineDefinition;
  readonly #date: string | undefined;
  /** Per `scopeFrom` column, the dates seen (file run keys only). */
  readonly #seen = new Map<string, Set<string>>();

  /**
   * @throws UsageError for a file run key of a pipeline with a derived table without
   *   `scopeFrom`: a file has no business date, and rebuilding none would leave the table stale.
   */
  constructor(pipeline: PipelineDefinition, runKey: RunKey) {
    this.#pipeline = pipeline;
    this.#date = runKey.kind === 'date' ? runKey.businessDate : undefined;
    if (runKey.kind !== 'file') return;
    for (const derived of pipeline.derived) {
      if (derived.scopeFrom === undefined) {
        throw new UsageError(
          `pipeline ${pipeline.name}: derived table ${derived.table} is rebuilt per business date, and a --file run has none: ` +
            `declare its scopeFrom (a date or instant column whose business date is a record's scope), or run with --date`,
        );
      }
      this.#seen.set(derived.scopeFrom, new Set());
    }
  }

  /** The records, unchanged; for a file run key, each one's scopes are noted on the way. */
  watch(records: AsyncIterable<PipelineRecord>): AsyncIterable<PipelineRecord> {
    if (this.#seen.size === 0) return records;
    const { columns, timeZone } = this.#pipeline;
    const seen = this.#seen;
    return (async function* () {
      for await (const record of records) {
        for (const [name, dates] of seen) {
          let value: unknown;
          try {
            value = canonicalValue(name, columns[name]!, record.values[name], timeZone);
          } catch {
            continue; // staging quarantines the record, naming the rule it breaks
          }
          if (typeof value === 'string') dates.add(businessDateOf(value, timeZone));
        }
        yield record;
      }
    })();
  }

  /** The scopes of each derived table, by table, in date order. */
  byTable(): Record<string, readonly string[]> {
    const scopes: Record<string, readonly string[]> = {};
    for (const derived of this.#pipeline.derived) {
      scopes[derived.table] = this.#date !== undefined ? [this.#date] : [...this.#seen.get(derived.scopeFrom!)!].sort();
    }
    return scopes;
  }
}
