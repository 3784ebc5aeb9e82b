import { Agent } from 'undici';
import type { HttpSettings } from './http-settings.ts';

/**
 * Builds the undici connection pool shared by every request of one stage: keep-alive sockets,
 * one connection pool per origin with `settings.concurrency` sockets, and the three timeouts.
 * The caller owns the agent and must `await agent.close()` when the stage ends.
 *
 * @example
 * ```ts
 * const agent = createHttpAgent(resolveHttpSettings({ concurrency: 4 }));
 * try { await requestJson(agent, { method: 'GET', url }); } finally { await agent.close(); }
 * ```
 */
export function createHttpAgent(settings: HttpSettings): Agent {
  return new Agent({
    connect: { timeout: settings.connectTimeoutMs },
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    connections: settings.concurrency,
  });
}
