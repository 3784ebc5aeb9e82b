import type { CsvSource } from './csv/csv-source.ts';
import type { HttpJsonSource } from './http-json/http-json-source.ts';
import type { SourceDeclaration, SourceKind } from './source-kind.ts';
import type { SqlSource } from './sql/sql-source.ts';

/**
 * A source of a kind a pipeline module brings itself: `kind` is its {@link SourceKind} object,
 * and the other options are the kind's own.
 */
export type OwnKindSource<Row> = Omit<SourceDeclaration<Row>, 'kind'> & { readonly kind: SourceKind<never>; readonly [option: string]: unknown };

/** Where a pipeline's rows come from: a built-in kind's declaration, or one of a kind of its own. */
export type SourceDefinition<Row> = CsvSource<Row> | HttpJsonSource<Row> | SqlSource<Row> | OwnKindSource<Row>;
