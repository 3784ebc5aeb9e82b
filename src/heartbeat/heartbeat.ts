import type { Logger } from 'pino';

/** A ping's bounded timeout (connect, headers and body), in ms. */
export const HEARTBEAT_TIMEOUT_MS = 5000;

/** Pings a monitoring service at the start and the end of a run. Never throws. */
export interface Heartbeat {
  start(): Promise<void>;
  success(): Promise<void>;
  fail(): Promise<void>;
}

/**
 * Heartbeats in the healthchecks.io convention (https://healthchecks.io/docs/http_api/):
 * `<url>/start` when a run starts working, the bare `<url>` on success, `<url>/fail` on failure.
 * Each ping carries `rid=<runId>` so overlapping runs are told apart. A failed or slow ping is
 * logged at warn and never fails the run. Without a URL every ping is a no-op.
 */
export function createHeartbeat(url: string | undefined, options: { runId: string; log: Logger; timeoutMs?: number }): Heartbeat {
  const timeoutMs = options.timeoutMs ?? HEARTBEAT_TIMEOUT_MS;
  const ping = async (suffix: '' | '/start' | '/fail'): Promise<void> => {
    if (!url) return;
    const target = new URL(`${url.replace(/\/+$/, '')}${suffix}`);
    target.searchParams.set('rid', options.runId);
    try {
      const { request } = await import('undici');
      const response = await request(target, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
      await response.body.dump();
      if (response.statusCode >= 400) options.log.warn({ ping: suffix || '/', status: response.statusCode }, 'heartbeat ping rejected');
    } catch (error) {
      options.log.warn({ ping: suffix || '/', reason: (error as Error).message }, 'heartbeat ping failed; the run goes on');
    }
  };
  return { start: () => ping('/start'), success: () => ping(''), fail: () => ping('/fail') };
}
