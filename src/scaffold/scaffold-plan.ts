import type { ColumnSpec } from '../column/column-type.ts';
import type { RenderedSource } from '../source/source-sample.ts';

/** What `idem new` inferred from a sample: everything the generated files are written from. */
export interface ScaffoldPlan {
  /** The pipeline's name (kebab-case), also the name of its module, fixture folder and test. */
  readonly name: string;
  readonly timeZone: string;
  /** The source field that holds the business key, or the fields of a composite key. */
  readonly key: readonly string[];
  /** Column name → inferred spec, in the sample's field order (the key left out). */
  readonly columns: readonly (readonly [string, ColumnSpec])[];
  /** Column name → source field, for the columns whose name differs from their field. */
  readonly fields: Readonly<Record<string, string>>;
  readonly tables: { readonly staging: string; readonly target: string };
  /** The sample as the module's comment names it (a file's name, a URL). */
  readonly sample: string;
  /** The source kind's part of the files: declaration, fixture, the test's source (see `SourceSample.render`). */
  readonly source: RenderedSource;
}
