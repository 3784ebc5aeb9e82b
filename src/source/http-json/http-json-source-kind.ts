import { z } from 'zod';
import { SourceError } from '../../errors/source-error.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { httpSettingsProblem, resolveHttpSettings } from '../../http/http-settings.ts';
import { countOption, deletionOptions, functionOption, invalidRowsOption, nameOption, rowSchemaOption } from '../source-option-schemas.ts';
import type { SourceKind } from '../source-kind.ts';
import type { HttpJsonSource } from './http-json-source.ts';

const PagingOptions = z.discriminatedUnion('style', [
  z.strictObject({ style: z.literal('cursor'), cursorField: nameOption, cursorParam: nameOption, limitParam: nameOption.optional(), limit: countOption.optional() }),
  z.strictObject({ style: z.literal('page-number'), pageParam: nameOption, perPageParam: nameOption, perPage: countOption, firstPage: z.number().int().min(0).optional() }),
  z.strictObject({ style: z.literal('link-header'), perPageParam: nameOption.optional(), perPage: countOption.optional() }),
]);

/** Every option of an {@link HttpJsonSource}, as `definePipeline` checks it. */
const HttpJsonSourceOptions = z.strictObject({
  kind: z.literal('http-json'),
  path: z.union([z.string().startsWith('/', { message: 'must start with "/"' }), functionOption('a string or a function of the business date')]),
  paging: PagingOptions,
  items: functionOption('a function of the response body'),
  row: rowSchemaOption,
  invalidRows: invalidRowsOption,
  ...deletionOptions,
  singleFullPage: z.enum(['fail', 'accept']),
  expectFields: z.array(nameOption).optional(),
  // Checked field by field by `httpSettingsProblem`, as IDEM_SOURCES is.
  http: z.unknown().optional(),
  incremental: z
    .strictObject({ param: nameOption, cursor: functionOption('a function of the validated row'), type: z.enum(['instant', 'integer']) })
    .optional(),
});

/**
 * The paged JSON HTTP API source kind (`httpJsonSource`): read once per run (its pages cannot be
 * asked for twice), for a business date only, from the base URL in `IDEM_SOURCES` and the
 * source's `path`; incremental when it declares `incremental`.
 */
export const HTTP_JSON_SOURCE_KIND: SourceKind<HttpJsonSource<unknown>> = {
  name: 'http-json',
  fieldForm: 'json',
  rereadable: false,
  servedByHandlers: true,
  options: HttpJsonSourceOptions,
  problems(source) {
    const problem = httpSettingsProblem(source.http ?? {});
    return problem === undefined ? [] : [`source.${problem}`];
  },
  withDerivedRow: (source, { row, fields }) => Object.freeze({ ...source, row, expectFields: source.expectFields ?? fields }),
  locate(source, runKey, { pipelineName, config }) {
    if (runKey.kind === 'file') throw new UsageError(`pipeline "${pipelineName}" reads an HTTP API, not a file: run it with --date YYYY-MM-DD`);
    const settings = config.sources[pipelineName];
    if (!settings || !/^https?:/i.test(settings.url)) {
      throw new UsageError(`pipeline "${pipelineName}" reads an HTTP API with no base URL: set IDEM_SOURCES='{"${pipelineName}":{"url":"https://…"}}'${settings ? ' (its entry is a database URL)' : ''}`);
    }
    const sourcePath = typeof source.path === 'string' ? source.path : source.path(runKey.businessDate);
    if (typeof sourcePath !== 'string' || !sourcePath.startsWith('/')) {
      throw new UsageError(`pipeline "${pipelineName}": its source path for ${runKey.businessDate} must start with "/" (got ${JSON.stringify(sourcePath)})`);
    }
    return `${settings.url.replace(/\/+$/, '')}${sourcePath}`;
  },
  checkLocation: (_source, { pipelineName, config }) =>
    config.sources[pipelineName] ? [] : [`the HTTP source has no base URL: set IDEM_SOURCES='{"${pipelineName}":{"url":"https://…"}}'`],
  async read(source, location, quarantine, options) {
    const http = resolveHttpSettings(source.http, options.settings?.http);
    let url = location;
    if (source.incremental && options.since !== undefined) {
      const withMark = new URL(location);
      withMark.searchParams.set(source.incremental.param, options.since);
      url = withMark.href;
    }
    if (source.row === undefined) throw new SourceError(location, undefined, 'the HTTP JSON source declares no row schema: give httpJsonSource a row, or the pipeline a key (definePipeline derives the row from its columns)');
    const { readHttpJsonRows } = await import('./read-http-json-rows.ts');
    return readHttpJsonRows(url, { ...source, row: source.row }, quarantine, { ...(options.settings?.headers ? { headers: options.settings.headers } : {}), http, ...(options.onRetry ? { onRetry: options.onRetry } : {}) });
  },
  incremental: (source) => source.incremental,
  changedCopy: async (source, request) => (await import('./changed-http-json-handlers.ts')).changedHttpJsonHandlers(source, request),
  scaffold: {
    flag: { name: 'json', argument: 'url-or-file', description: 'a sample of an HTTP JSON source: a URL, or a file with its response body' },
    sample: async (location) => (await import('./http-json-sample.ts')).sampleHttpJson(location),
  },
};
