import type { DestinationDefinition } from '../destination/destination-definition.ts';
import type { SourceDefinition } from '../source/source-definition.ts';
import type { SourceRow } from '../source/source-row.ts';
import type { ColumnSpecs, ColumnValues } from '../column/column-type.ts';
import type { PipelineRecord } from './pipeline-record.ts';
import type { ChildTableDefinition } from './child-table-definition.ts';
import type { DerivedTableDefinition } from './derived-table-definition.ts';

/**
 * What happens when one business key occurs more than once in a run, applied in SQL after the
 * whole run is staged, so the outcome never depends on chunk sizes:
 * - `error`: the run fails and names the keys and lines;
 * - `last-wins`: the record that came last in the source is kept;
 * - `collapse-identical`: identical duplicates collapse to one; differing ones fail the run.
 */
export type DuplicateKeyRule = 'error' | 'last-wins' | 'collapse-identical';

/** A pipeline module's definition: `export const pipeline = definePipeline({ … })`. */
// `any` by default: a registry of pipelines holds many row types, and `toRecords` is contravariant in it.
// `Columns` types the destinations' `PostedRow.values` (see `ColumnValues`).
export interface PipelineDefinition<Row = any, Columns extends ColumnSpecs = ColumnSpecs> {
  /** Unique name, kebab-case; also the job name in `job_runs` and the app lock's name. */
  readonly name: string;
  /** One line for `idem pipelines`. */
  readonly description: string;
  /** The `source_system` half of every business key this pipeline writes. */
  readonly sourceSystem: string;
  /** IANA time zone of the business date (for example `Europe/London`), never the server's. */
  readonly timeZone: string;
  readonly source: SourceDefinition<Row>;
  /**
   * The source field that holds the business key (the `source_reference`), when each source row
   * is one record. With it, a source without a `row` schema gets one derived from `columns`
   * (see `columnsRowSchema`), a CSV source without a `header` takes the key and the column names,
   * and `toRecords` may be left out: each row becomes the record of its key, its values the
   * fields of the columns' names. Several fields (`['order_id', 'line_no']`) make a composite
   * key: one source reference, their texts encoded by `compositeSourceReference` (`536365/1`).
   * @defaultValue none: `source.row` and `toRecords` are required
   */
  readonly key?: string | readonly string[];
  /**
   * With `key`: the source field of each column whose name differs from the column's (a column
   * is a snake_case SQL identifier, a source field often is not: `{ miles_per_gallon:
   * 'Miles_per_Gallon' }`). @defaultValue {} (each column is read from the field of its name)
   */
  readonly fields?: Readonly<Record<string, string>>;
  /**
   * Turns validated rows into records; see `groupRows` for records built from several rows.
   * @defaultValue with `key`: one record per row, `values` the row's fields named as the columns
   */
  readonly toRecords: (rows: AsyncIterable<SourceRow<Row>>) => AsyncIterable<PipelineRecord>;
  /** Table names: both are created by the pipeline's migration (see `createPipelineTables`). */
  readonly tables: { readonly staging: string; readonly target: string };
  /** The business columns, in order: what upsert compares and copies. */
  readonly columns: Columns;
  /** @defaultValue 'error' */
  readonly duplicateKeys: DuplicateKeyRule;
  /** Where new and changed records are posted after upsert, through the post ledger. @defaultValue [] */
  readonly destinations: readonly DestinationDefinition<ColumnValues<Columns>>[];
  /**
   * Tables rebuilt from the target for the run's scope (the business date) in the upsert's
   * transaction; see {@link DerivedTableDefinition}. `scope` defaults to `'business_date'`. @defaultValue []
   */
  readonly derived: readonly DerivedTableDefinition[];
  /** Child tables of a json list column, replaced with their parent; see {@link ChildTableDefinition}. @defaultValue [] */
  readonly children: readonly ChildTableDefinition[];
}
