import { z } from 'zod';
import type { SandboxFault, SandboxSettings } from './sandbox-fault.ts';

const scope = {
  route: z.enum(['POST /invoices', 'PUT /invoices/:id', 'GET /products']).optional(),
  reference: z.string().optional(),
  count: z.int().optional(),
};
const ms = z.number().nonnegative();

/** One {@link SandboxFault}; unknown fields are rejected, so a misspelt one is not silently ignored. */
const sandboxFault = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('status'), ...scope, status: z.int().min(100).max(599), retryAfterSeconds: z.number().nonnegative().optional(), body: z.unknown().optional() }),
  z.strictObject({ kind: z.literal('reset'), ...scope }),
  z.strictObject({ kind: z.literal('reset-after-commit'), ...scope }),
  z.strictObject({ kind: z.literal('hang-after-commit'), ...scope, ms: ms.optional() }),
  z.strictObject({ kind: z.literal('status-after-commit'), ...scope, status: z.int().min(100).max(599), body: z.unknown().optional() }),
  z.strictObject({ kind: z.literal('late-commit'), ...scope, ms }),
]) satisfies z.ZodType<SandboxFault>;

/**
 * The body of `POST /_admin/faults`: the {@link SandboxSettings} to change (each omitted one keeps
 * its value) and `faults`, which replaces the queue when given.
 */
export const sandboxAdminConfig = z.strictObject({
  latencyMs: ms.optional(),
  idempotencyKeys: z.boolean().optional(),
  maxRequestsPerSecond: z.number().nonnegative().optional(),
  faults: z.array(sandboxFault).optional(),
}) satisfies z.ZodType<SandboxSettings & { faults?: SandboxFault[] }>;
