import type { ColumnSpec } from '../column/column-type.ts';
import type { HttpJsonPaging } from '../source/http-json/http-json-paging.ts';

/** What `idem new` inferred from a sample: everything the generated files are written from. */
export interface ScaffoldPlan {
  /** The pipeline's name (kebab-case), also the name of its module, fixture folder and test. */
  readonly name: string;
  readonly timeZone: string;
  /** The source field that holds the business key. */
  readonly key: string;
  /** Column name → inferred spec, in the sample's field order (the key left out). */
  readonly columns: readonly (readonly [string, ColumnSpec])[];
  /** Column name → source field, for the columns whose name differs from their field. */
  readonly fields: Readonly<Record<string, string>>;
  readonly tables: { readonly staging: string; readonly target: string };
  readonly source:
    | { readonly kind: 'csv'; readonly nullValues: readonly string[]; readonly lastLineBreak: 'required' | 'optional'; readonly sample: string }
    | { readonly kind: 'http-json'; readonly path: string; readonly paging: HttpJsonPaging; readonly itemsProperty: string | undefined; readonly baseUrl: string | undefined; readonly sample: string }
    | { readonly kind: 'sql'; readonly database: string; readonly sql: string; readonly rangeColumn: string | undefined; readonly sample: string };
  /** The fixture's path, relative to the project directory (`fixtures/<name>/sample.csv|json`). */
  readonly fixture: string;
  /** How many records the fixture holds. */
  readonly fixtureRows: number;
}
