import { existsSync } from 'node:fs';
import { SourceError } from '../errors/source-error.ts';
import { resolveHttpSettings } from '../http/http-settings.ts';
import type { RetryInfo } from '../http/send-with-retry.ts';
import type { QuarantinedRow } from './quarantined-row.ts';
import { readCsvRows } from './read-csv-rows.ts';
import { readHttpJsonRows } from './read-http-json-rows.ts';
import type { SourceDefinition } from './source-definition.ts';
import type { SourceRow } from './source-row.ts';
import type { SourceSettings } from '../config/source-settings.ts';

/** Deployment settings and hooks for {@link readSourceRows}; CSV sources use none of them. */
export interface ReadSourceOptions {
  /** The pipeline's `IDEM_SOURCES` entry (HTTP sources: headers and `http` overrides). */
  readonly settings?: SourceSettings;
  /** HTTP sources: called before waiting to retry the page `url`. */
  readonly onRetry?: (url: string, info: RetryInfo) => void | Promise<void>;
  /**
   * Called with each validated row before it is yielded (counts, progress): cheaper than one
   * more async generator around the rows, which costs a promise per row.
   */
  readonly onRow?: (row: SourceRow<unknown>) => void;
  /**
   * An HTTP source with `incremental`: the high-water mark to send in its `param`, so the API
   * answers what changed since. @defaultValue none: read everything
   */
  readonly since?: string;
}

async function* observed<Row>(rows: AsyncIterable<SourceRow<Row>>, onRow: (row: SourceRow<unknown>) => void): AsyncGenerator<SourceRow<Row>> {
  for await (const row of rows) {
    onRow(row);
    yield row;
  }
}

/**
 * Streams a source's validated rows from its location (a file path, or a URL), sending rejected
 * rows to `quarantine`.
 * @throws SourceError when the source cannot be read.
 */
export function readSourceRows<Row>(
  source: SourceDefinition<Row>,
  location: string,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  options: ReadSourceOptions = {},
): AsyncIterable<SourceRow<Row>> {
  switch (source.kind) {
    case 'csv':
      if (!existsSync(location)) throw new SourceError(location, undefined, 'source file not found');
      if (source.header === undefined || source.row === undefined) {
        throw new SourceError(location, undefined, 'the CSV source declares no row schema: give csvSource a row, or the pipeline a key (definePipeline derives the row from its columns)');
      }
      return readCsvRows(location, { ...source, header: source.header, row: source.row }, quarantine, options.onRow);
    case 'http-json': {
      const http = resolveHttpSettings(source.http, options.settings?.http);
      let url = location;
      if (source.incremental && options.since !== undefined) {
        const withMark = new URL(location);
        withMark.searchParams.set(source.incremental.param, options.since);
        url = withMark.href;
      }
      if (source.row === undefined) throw new SourceError(location, undefined, 'the HTTP JSON source declares no row schema: give httpJsonSource a row, or the pipeline a key (definePipeline derives the row from its columns)');
      const rows = readHttpJsonRows(url, { ...source, row: source.row }, quarantine, { ...(options.settings?.headers ? { headers: options.settings.headers } : {}), http, ...(options.onRetry ? { onRetry: options.onRetry } : {}) });
      return options.onRow ? observed(rows, options.onRow) : rows;
    }
  }
}
