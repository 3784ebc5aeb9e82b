import { z } from 'zod';
import { POST_STRATEGIES } from '../destination/post-strategy.ts';

const ms = z.number().int().min(1);

/**
 * Deployment settings of one destination, from `IDEM_DESTINATIONS` (JSON object keyed by
 * destination name), for example
 * `{"sandbox-accounting":{"url":"https://api.example.com","headers":{"authorization":"Bearer …"}}}`.
 * `strategy` and `http` override the pipeline's choice (for a destination whose sandbox lacks a
 * feature, or for tests).
 */
export const DestinationSettingsSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }),
    strategy: z.enum(POST_STRATEGIES as ['idempotency-key', 'check-before-create', 'mark-before-send']).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    http: z
      .object({
        connectTimeoutMs: ms.optional(),
        headersTimeoutMs: ms.optional(),
        bodyTimeoutMs: ms.optional(),
        keepAliveTimeoutMs: ms.optional(),
        concurrency: z.number().int().min(1).max(256).optional(),
        retry: z
          .object({
            maxAttempts: z.number().int().min(1).optional(),
            minDelayMs: z.number().int().min(0).optional(),
            maxDelayMs: ms.optional(),
            factor: z.number().min(1).optional(),
            maxRetryTimeMs: ms.optional(),
            maxRetryAfterMs: z.number().int().min(0).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type DestinationSettings = z.output<typeof DestinationSettingsSchema>;
export const DestinationsSettingsSchema = z.record(z.string(), DestinationSettingsSchema);
