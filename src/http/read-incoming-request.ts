import type { IncomingMessage } from 'node:http';

/** A request a loopback server received, read whole, and as a fetch `Request` (what msw's `getResponse` takes). */
export interface IncomingRequest {
  /** The HTTP method, e.g. 'POST'. */
  readonly method: string;
  /** Path and query, as sent (`/invoices?reference=536365`). */
  readonly path: string;
  /** Header names in lower case; a repeated header's values joined by `, ` (RFC 9110 §5.3). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as UTF-8 text; '' when there is none. */
  readonly text: string;
  /** The same request against `base`, with the body where the method may carry one (not GET or HEAD). */
  readonly request: Request;
}

/**
 * Reads the whole of `incoming` (UTF-8) and builds its fetch `Request` against `base`
 * (`http://127.0.0.1:<port>`), for a server that answers with msw handlers on a real port
 * (msw cannot see undici's own requests: mswjs/msw#2165).
 */
export async function readIncomingRequest(incoming: IncomingMessage, base: string): Promise<IncomingRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const method = incoming.method ?? 'GET';
  const path = incoming.url ?? '/';
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const hasBody = text.length > 0 && method !== 'GET' && method !== 'HEAD';
  const request = new Request(new URL(path, base), { method, headers, ...(hasBody ? { body: text } : {}) });
  return { method, path, headers, text, request };
}
