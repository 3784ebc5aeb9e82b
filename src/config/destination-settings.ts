import { z } from 'zod';
import { POST_STRATEGIES, type PostStrategy } from '../destination/post-strategy.ts';
import { HttpSettingsSchema } from '../http/http-settings.ts';
import { unjoinableBaseUrlReason } from '../http/join-url.ts';

/**
 * Deployment settings of one destination, from `IDEM_DESTINATIONS` (JSON object keyed by
 * destination name), for example
 * `{"sandbox-accounting":{"url":"https://api.example.com","headers":{"authorization":"Bearer …"}}}`.
 * `url` is the base every request path is joined to (`joinUrl`): it may have a path prefix
 * and a query (`https://api.example.com/v2/?api_key=…`, kept on every request), not a fragment.
 * `strategy`, `http` and `settleDelayMs` override the pipeline's choice (for a destination whose
 * sandbox lacks a feature, or for tests); `http` follows the same rules as the pipeline's
 * ({@link HttpSettingsSchema}).
 */
export const DestinationSettingsSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }).superRefine((url, context) => {
      const reason = unjoinableBaseUrlReason(url);
      if (reason !== undefined) context.addIssue({ code: 'custom', message: `cannot be a base URL: ${reason}` });
    }),
    strategy: z.enum(POST_STRATEGIES as readonly [PostStrategy, ...PostStrategy[]]).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    http: HttpSettingsSchema.optional(),
    settleDelayMs: z.number().int().min(0).optional(),
  })
  .strict();

export type DestinationSettings = z.output<typeof DestinationSettingsSchema>;
export const DestinationsSettingsSchema = z.record(z.string(), DestinationSettingsSchema);
