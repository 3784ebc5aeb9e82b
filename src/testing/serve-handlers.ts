import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse, type RequestHandler } from 'msw';
import { readIncomingRequest } from '../http/read-incoming-request.ts';

/** One request a {@link HandlerServer} received, as it crossed the socket. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent (`/invoices?reference=536365`). */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body parsed as JSON when it is JSON, else its text; undefined when empty. */
  readonly body: unknown;
  /** The status the handlers answered (501 when no handler matched). */
  readonly status: number;
}

/** msw request handlers served on a real loopback port. */
export interface HandlerServer {
  /** `http://127.0.0.1:<port>`: a destination's or an HTTP source's URL for `IDEM_DESTINATIONS` / `IDEM_SOURCES`. */
  readonly url: string;
  /** Every request received so far, in arrival order (unhandled ones too). */
  readonly requests: readonly RecordedRequest[];
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Serves msw request handlers (`http.post('/invoices', …)` from `msw`) on a free port of
 * 127.0.0.1, so idem's own requests, made with undici, cross a real socket: msw's interception
 * cannot see undici (mswjs/msw#2165), and a real port also tests timeouts and connection reuse.
 * Handler paths are relative (`/invoices`) or absolute on this server's URL; each request is
 * answered by msw's `getResponse()`. A request no handler answers gets `501` with a body naming
 * its method and path, so a failing run says which request the description is missing.
 * @throws Error (rejects) when no port can be bound.
 */
export async function serveHandlers(handlers: readonly RequestHandler[]): Promise<HandlerServer> {
  const requests: RecordedRequest[] = [];
  let base = '';
  const server = createServer((incoming, outgoing) => {
    answer(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) outgoing.writeHead(500, { 'content-type': 'text/plain' });
      outgoing.end(`handler failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  async function answer(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const { method, path, headers, text, request } = await readIncomingRequest(incoming, base);
    const response = await getResponse([...handlers], request, { baseUrl: base });
    const status = response?.status ?? 501;
    requests.push({ method, path, headers, body: parseBody(text), status });
    if (!response) {
      outgoing.writeHead(501, { 'content-type': 'text/plain' });
      outgoing.end(`no request handler for ${method} ${path}`);
      return;
    }
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => (responseHeaders[name] = value));
    outgoing.writeHead(status, responseHeaders);
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function parseBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
