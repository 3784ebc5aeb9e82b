import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SandboxPauses } from './sandbox-pauses.ts';

/** A listening sandbox HTTP server. */
export interface SandboxServer {
  /** Base URL without trailing slash, e.g. 'http://127.0.0.1:54321'. */
  readonly url: string;
  readonly port: number;
  /** Stops listening, ends every pause and destroys every open socket, hung requests included. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts listening with `listener` on `host`:`port` (port 0 = a free one chosen by the OS).
 * @param pauses the waits of the requests, stopped on `close()` so no timer outlives the server.
 * @throws Error (rejects) when the server cannot listen, e.g. EADDRINUSE.
 */
export async function startSandboxServer(listener: RequestListener, options: { host: string; port: number }, pauses: SandboxPauses): Promise<SandboxServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    port,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        pauses.stopAll();
        server.close((error) => (error ? reject(error) : resolve()));
        // Hung requests would otherwise keep server.close() waiting for ever.
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
