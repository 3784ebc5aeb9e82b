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
 * @throws UsageError when `host` is not loopback and there is no token, or the address cannot be listened on (a port in use); other listen errors as they are.
 */
export async function startUiServer(ctx: UiContext, options: { host?: string; port?: number; token?: string; onError?: (error: Error) => void }): Promise<UiServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = LOOPBACK.has(host);
  if (!loopback && !options.token) throw new UsageError(`idem ui binds ${host}, an address other machines may reach: set IDEM_UI_TOKEN to a secret the page will ask for (or use --host 127.0.0.1)`);
  const app = createUiApp(ctx, {
    ...(options.token ? { token: options.token } : {}),
    ...(loopback ? { allowedHosts: new Set(['127.0.0.1', 'localhost', '[::1]']) } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, () => resolve(started));
    started.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' || error.code === 'EADDRNOTAVAIL' ? new UsageError(`idem ui cannot listen on ${host}:${options.port ?? 0} (${error.code}): choose another --port or --host`, { cause: error }) : error),
    );
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
