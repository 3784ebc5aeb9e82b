import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback stand-in for healthchecks.io that records every ping (path and query). */
export interface PingRecorder {
  readonly url: string;
  readonly pings: { path: string; rid: string | null }[];
  close(): Promise<void>;
}

/** Starts a ping recorder; `delayMs` makes it answer slowly (to test the bounded timeout). */
export async function startPingRecorder(options: { delayMs?: number; status?: number } = {}): Promise<PingRecorder> {
  const pings: PingRecorder['pings'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    pings.push({ path: url.pathname, rid: url.searchParams.get('rid') });
    setTimeout(() => res.writeHead(options.status ?? 200).end('OK'), options.delayMs ?? 0).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ping/abc`,
    pings,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
