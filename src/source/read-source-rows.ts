import type { QuarantinedRow } from './quarantined-row.ts';
import type { ReadSourceOptions, SourceDeclaration } from './source-kind.ts';
import { sourceKindOf } from './source-kinds.ts';
import type { SourceRow } from './source-row.ts';

async function* observed<Row>(rows: AsyncIterable<SourceRow<Row>>, onRow: (row: SourceRow<unknown>) => void): AsyncGenerator<SourceRow<Row>> {
  for await (const row of rows) {
    onRow(row);
    yield row;
  }
}

/**
 * Streams a source's validated rows from its location (a file path, a URL) through its kind's
 * `read`, sending rejected rows to `quarantine`; `options.onRow` sees each row before it is
 * yielded, whether or not the kind calls it itself (`observesRows`).
 * @throws SourceError when the source cannot be read.
 */
export async function readSourceRows<Row>(
  source: SourceDeclaration<Row>,
  location: string,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  options: ReadSourceOptions = {},
): Promise<AsyncIterable<SourceRow<Row>>> {
  const kind = sourceKindOf(source);
  const rows = (await kind.read(source, location, quarantine, options)) as AsyncIterable<SourceRow<Row>>;
  return options.onRow && !kind.observesRows ? observed(rows, options.onRow) : rows;
}
