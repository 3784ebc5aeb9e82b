import type { CsvSource } from './csv-source.ts';
import type { HttpJsonSource } from './http-json-source.ts';

/** Where a pipeline's rows come from. Each kind has a reader in `readSourceRows`. */
export type SourceDefinition<Row> = CsvSource<Row> | HttpJsonSource<Row>;
