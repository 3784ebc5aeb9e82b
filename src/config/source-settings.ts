import { z } from 'zod';
import { HttpSettingsSchema } from '../http/http-settings.ts';
import { DatabaseUrlSchema } from './database-url-schema.ts';

/** An HTTP source's base URL: no query, fragment or user info (credentials go in `headers`). */
const HttpBaseUrlSchema = z.url({ protocol: /^https?$/ }).refine((url) => {
  const parsed = new URL(url);
  return parsed.search === '' && parsed.hash === '' && parsed.username === '' && parsed.password === '';
}, 'must be a base URL without query, fragment or credentials (send credentials in "headers")');

/**
 * Deployment settings of one source, from `IDEM_SOURCES` (a JSON object). Two shapes:
 *
 * An HTTP source's, keyed by pipeline name, for example
 * `{"online-retail-products":{"url":"https://api.example.com/v2","headers":{"authorization":"Bearer …"}}}`.
 * - `url`: the base URL the source's `path` is appended to; no query, fragment or user info, so
 *   nothing secret ends up in logs, `job_runs` or the quarantine, which name the URL
 *   (credentials go in `headers`).
 * - `headers`: sent with every request; never logged.
 * - `http`: overrides the pipeline's timeouts and retries, field by field, by the same rules
 *   ({@link HttpSettingsSchema}).
 *
 * A SQL source's database, keyed by the name its `sqlSource` gives (`database: 'shop'`), for
 * example `{"shop":{"url":"postgres://reader:secret@db.internal:5432/shop"}}`: `url` is a
 * database URL of any of the four dialects ({@link DatabaseUrlSchema}); its password is redacted
 * everywhere, as `DATABASE_URL`'s is. Several pipelines may read one database.
 */
export const SourceSettingsSchema = z
  .object({
    // By scheme, so each kind of URL gets its own rule's message.
    url: z.string().superRefine((url, ctx) => {
      const schema = /^https?:/i.test(url) ? HttpBaseUrlSchema : /^[a-z]+:/i.test(url) && !/^(sqlite:|postgres|postgresql:|mysql:|mariadb:|mssql:|sqlserver:)/i.test(url) ? undefined : DatabaseUrlSchema;
      const parsed = schema?.safeParse(url);
      if (schema === undefined) ctx.addIssue({ code: 'custom', message: 'must be an http(s) base URL (an HTTP source) or a database URL: sqlite:, postgres://, mysql://, mariadb://, mssql:// (a SQL source)' });
      else if (!parsed!.success) ctx.addIssue({ code: 'custom', message: parsed!.error.issues[0]!.message });
    }),
    headers: z.record(z.string(), z.string()).optional(),
    http: HttpSettingsSchema.optional(),
  })
  .strict()
  .refine((settings) => /^https?:/.test(settings.url) || (settings.headers === undefined && settings.http === undefined), {
    message: 'a database URL takes no "headers" or "http" (those are an HTTP source\'s)',
  });

export type SourceSettings = z.output<typeof SourceSettingsSchema>;
export const SourcesSettingsSchema = z.record(z.string(), SourceSettingsSchema);
