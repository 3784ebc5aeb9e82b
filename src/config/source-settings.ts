import { z } from 'zod';
import { HttpSettingsSchema } from '../http/http-settings.ts';

/**
 * Deployment settings of one pipeline's HTTP source, from `IDEM_SOURCES` (JSON object keyed by
 * pipeline name), for example
 * `{"online-retail-products":{"url":"https://api.example.com/v2","headers":{"authorization":"Bearer …"}}}`.
 * - `url`: the base URL the source's `path` is appended to; no query, fragment or user info, so
 *   nothing secret ends up in logs, `job_runs` or the quarantine, which name the URL
 *   (credentials go in `headers`).
 * - `headers`: sent with every request; never logged.
 * - `http`: overrides the pipeline's timeouts and retries, field by field, by the same rules
 *   ({@link HttpSettingsSchema}).
 */
export const SourceSettingsSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }).refine((url) => {
      const parsed = new URL(url);
      return parsed.search === '' && parsed.hash === '' && parsed.username === '' && parsed.password === '';
    }, 'must be a base URL without query, fragment or credentials (send credentials in "headers")'),
    headers: z.record(z.string(), z.string()).optional(),
    http: HttpSettingsSchema.optional(),
  })
  .strict();

export type SourceSettings = z.output<typeof SourceSettingsSchema>;
export const SourcesSettingsSchema = z.record(z.string(), SourceSettingsSchema);
