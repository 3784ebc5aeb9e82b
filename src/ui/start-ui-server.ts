import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { UsageError } from '../errors/usage-error.ts';
import { createUiApp } from './create-ui-app.ts';
import type { UiContext } from './ui-context.ts';

/** The addresses `idem ui` serves on without a token: this machine only. */
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** A running `idem ui`: its address, and how to stop it. */
export interface UiServer {
  /** For example `http://127.0.0.1:4321/`. */
  readonly url: string;
  /** Stops listening and ends open connections. Never throws. */
  close(): Promise<void>;
}

/**
 * Serves the `idem ui` page (see `createUiApp`) with @hono/node-server.
 * @param options.host the address to bind. @defaultValue '127.0.0.1'
 * @param options.port the port (0: a free one). @defaultValue 0
 * @param options.token `IDEM_UI_TOKEN`: required for any address but loopback.
 * @throws UsageError when `host` is not loopback and there is no token; the server's listen errors (a port in use).
 */
export async function startUiServer(ctx: UiContext, options: { host?: string; port?: number; token?: string; onError?: (error: Error) => void }): Promise<UiServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = LOOPBACK.has(host);
  if (!loopback && !options.token) throw new UsageError(`idem ui binds ${host}, an address other machines may reach: set IDEM_UI_TOKEN to a secret the page will ask for (or use --host 127.0.0.1)`);
  let allowedHosts: Set<string> | undefined;
  const app = () => createUiApp(ctx, { ...(options.token ? { token: options.token } : {}), ...(allowedHosts ? { allowedHosts } : {}), ...(options.onError ? { onError: options.onError } : {}) });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    let fetch: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
    const started = serve({ fetch: (request) => fetch(request), hostname: host, port: options.port ?? 0 }, (info: AddressInfo) => {
      if (loopback) allowedHosts = new Set(['127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${info.port}`));
      fetch = app().fetch;
      resolve(started);
    });
    started.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
