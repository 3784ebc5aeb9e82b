import { startSandboxApi, type SandboxApi, type SandboxApiOptions } from '../../src/sandbox/start-sandbox-api.ts';

/** The example pipeline's destination name. */
export const DESTINATION = 'sandbox-accounting';

/** Starts the sandbox accounting API in the test process on a free loopback port. */
export function startSandbox(options: SandboxApiOptions = {}): Promise<SandboxApi> {
  return startSandboxApi({ port: 0, ...options });
}

/**
 * `IDEM_DESTINATIONS` pointing the example pipeline at a sandbox, with optional overrides
 * (strategy, http timeouts and retry settings). Retries wait little by default so tests stay fast.
 */
export function destinationsEnv(sandbox: SandboxApi, overrides: Record<string, unknown> = {}): string {
  const { http = {}, ...rest } = overrides as { http?: Record<string, unknown> };
  const { retry = {}, ...httpRest } = http as { retry?: Record<string, unknown> };
  return JSON.stringify({
    [DESTINATION]: { url: sandbox.url, ...rest, http: { ...httpRest, retry: { minDelayMs: 20, maxDelayMs: 200, ...retry } } },
  });
}

/** The products pipeline's name: its `IDEM_SOURCES` key. */
export const PRODUCTS_PIPELINE = 'online-retail-products';

/**
 * `IDEM_SOURCES` pointing the products pipeline at a sandbox, with optional overrides (headers,
 * http timeouts and retry settings). Retries wait little by default so tests stay fast.
 */
export function sourcesEnv(sandbox: SandboxApi, overrides: Record<string, unknown> = {}): string {
  const { http = {}, ...rest } = overrides as { http?: Record<string, unknown> };
  const { retry = {}, ...httpRest } = http as { retry?: Record<string, unknown> };
  return JSON.stringify({
    [PRODUCTS_PIPELINE]: { url: sandbox.url, ...rest, http: { ...httpRest, retry: { minDelayMs: 20, maxDelayMs: 200, ...retry } } },
  });
}
