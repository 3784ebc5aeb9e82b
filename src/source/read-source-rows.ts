import { existsSync } from 'node:fs';
import { SourceError } from '../errors/source-error.ts';
import type { QuarantinedRow } from '../quarantine/quarantined-row.ts';
import { readCsvRows } from './read-csv-rows.ts';
import type { SourceDefinition } from './source-definition.ts';
import type { SourceRow } from './source-row.ts';

/**
 * Streams a source's validated rows from its location (a file path, or a URL), sending rejected
 * rows to `quarantine`.
 * @throws SourceError when the source cannot be read.
 */
export function readSourceRows<Row>(
  source: SourceDefinition<Row>,
  location: string,
  quarantine: (row: QuarantinedRow) => Promise<void>,
): AsyncIterable<SourceRow<Row>> {
  switch (source.kind) {
    case 'csv':
      if (!existsSync(location)) throw new SourceError(location, undefined, 'source file not found');
      return readCsvRows(location, source, quarantine);
  }
}
