import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../errors/usage-error.ts';
import { DatabaseUrlSchema } from './database-url-schema.ts';
import { DestinationsSettingsSchema } from './destination-settings.ts';
import { SourcesSettingsSchema } from './source-settings.ts';
import type { ResolvedConfig } from './resolved-config.ts';
import { telemetrySettings } from './telemetry-settings.ts';
import { commandIo } from '../command-io/command-io.ts';

const positiveMs = z.coerce.number().int().min(100);

/**
 * `IDEM_READ_THREADS` when unset: 1, the run's own thread reads. One place to change it once the
 * year import's figures with 1 and 2 threads (bench/README.md) decide.
 */
export const DEFAULT_READ_THREADS = 1;

/** A setting holding a JSON object, validated by `schema`; unset or blank is `{}`. */
function jsonSetting<T extends z.ZodType<Record<string, unknown>>>(schema: T) {
  return z
    .string()
    .optional()
    .transform((text, ctx): z.output<T> => {
      if (text === undefined || text.trim() === '') return {} as z.output<T>;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return z.NEVER;
      }
      const parsed = schema.safeParse(json);
      if (parsed.success) return parsed.data;
      const issue = parsed.error.issues[0]!;
      ctx.addIssue({ code: 'custom', message: `${issue.path.join('.')}: ${issue.message}` });
      return z.NEVER;
    });
}

/** Settings whose values may hold credentials (headers, tokens in URLs): errors name them, never echo them. */
const SECRET_SETTINGS: ReadonlySet<string> = new Set(['IDEM_DESTINATIONS', 'IDEM_SOURCES', 'IDEM_HEARTBEATS']);

const EnvSchema = z.object({
  IDEM_PROJECT_DIR: z.string().min(1).optional(),
  DATABASE_URL: DatabaseUrlSchema.optional(),
  IDEM_LOCK_LEASE_MS: positiveMs.default(30_000),
  IDEM_HEARTBEAT_MS: positiveMs.default(10_000),
  IDEM_CLAIM_TTL_MS: positiveMs.default(60_000),
  IDEM_TAKEOVER_GRACE_MS: z.coerce.number().int().min(0).default(5_000),
  IDEM_MIGRATE_LOCK_WAIT_MS: z.coerce.number().int().min(0).default(60_000),
  IDEM_MSSQL_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  IDEM_STOP_GRACE_MS: positiveMs.default(10_000),
  // Blank is unset (a container's `ENV IDEM_READ_THREADS=`).
  IDEM_READ_THREADS: z
    .enum(['', '1', '2'], { message: "must be 1 (the run's own thread reads its source) or 2 (a thread of its own reads and validates a CSV file)" })
    .optional()
    .transform((text) => (text ? Number(text) : DEFAULT_READ_THREADS) as 1 | 2),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  IDEM_SOURCE_DIR: z.string().min(1).optional(),
  IDEM_FAILPOINTS: z.string().optional(),
  IDEM_HEARTBEATS: jsonSetting(z.record(z.string(), z.url({ protocol: /^https?$/ }))),
  IDEM_NOW: z.iso.datetime({ offset: true }).optional(),
  IDEM_TRIGGERED_BY: z.string().trim().min(1).max(200).optional(),
  IDEM_DESTINATIONS: jsonSetting(DestinationsSettingsSchema),
  IDEM_SOURCES: jsonSetting(SourcesSettingsSchema),
});

/**
 * Reads idem's settings from the environment once: the running command's (`commandIo`, the
 * process's own unless a caller gave one) by default. Nothing below this module reads
 * `process.env`.
 *
 * @throws UsageError naming the variable, the rule and the value.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = commandIo().env, cwd: string = commandIo().cwd): ResolvedConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    // Never echo IDEM_DESTINATIONS, IDEM_SOURCES or IDEM_HEARTBEATS: they may hold credentials.
    // DATABASE_URL may hold a password wherever a typo put it: only the text before its first ':' is shown.
    const got = SECRET_SETTINGS.has(name) ? '' : name === 'DATABASE_URL' ? ` (got "${String(env[name]).split(/[:/@]/)[0]}…")` : ` (got ${JSON.stringify(env[name])})`;
    throw new UsageError(`${name} ${issue.message}${got}`);
  }
  const e = parsed.data;
  const projectDir = path.resolve(cwd, e.IDEM_PROJECT_DIR ?? '.');
  return Object.freeze({
    projectDir,
    databaseUrl: e.DATABASE_URL ?? `sqlite:${path.join(projectDir, 'var', 'idem.sqlite3')}`,
    lockLeaseMs: e.IDEM_LOCK_LEASE_MS,
    heartbeatMs: e.IDEM_HEARTBEAT_MS,
    claimTtlMs: e.IDEM_CLAIM_TTL_MS,
    takeoverGraceMs: e.IDEM_TAKEOVER_GRACE_MS,
    migrateLockWaitMs: e.IDEM_MIGRATE_LOCK_WAIT_MS,
    mssqlRequestTimeoutMs: e.IDEM_MSSQL_REQUEST_TIMEOUT_MS,
    stopGraceMs: e.IDEM_STOP_GRACE_MS,
    readThreads: e.IDEM_READ_THREADS,
    logLevel: e.LOG_LEVEL,
    telemetry: telemetrySettings(env),
    sourceDir: e.IDEM_SOURCE_DIR,
    failpoints: e.IDEM_FAILPOINTS,
    destinations: e.IDEM_DESTINATIONS,
    sources: e.IDEM_SOURCES,
    heartbeats: e.IDEM_HEARTBEATS,
    now: e.IDEM_NOW === undefined ? undefined : new Date(e.IDEM_NOW),
    triggeredBy: e.IDEM_TRIGGERED_BY,
  });
}
