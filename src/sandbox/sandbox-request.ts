import type { IncomingMessage } from 'node:http';

/** One request as the sandbox handles it: read whole, its body parsed as JSON once. */
export interface SandboxRequest {
  /** The HTTP method, e.g. 'POST'. */
  readonly method: string;
  /** The request URL, resolved against a placeholder origin (only path and query matter). */
  readonly url: URL;
  /** The body text as received; '' when there is none. */
  readonly raw: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON (validation then reports it). */
  readonly body: unknown;
  /** The body's `reference` when it is a JSON object with a string one. */
  readonly reference: string | undefined;
  /** A header's value; null when it is absent, empty or repeated. */
  header(name: string): string | null;
  /** Resets the TCP connection without answering (a fault). */
  resetConnection(): void;
}

/** Reads the whole body of `req` (UTF-8). */
export async function readSandboxRequest(req: IncomingMessage): Promise<SandboxRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const body = parseJson(raw);
  const reference = body !== null && typeof body === 'object' ? (body as { reference?: unknown }).reference : undefined;
  return {
    method: req.method ?? 'GET',
    url: new URL(req.url ?? '/', 'http://sandbox'),
    raw,
    body,
    reference: typeof reference === 'string' ? reference : undefined,
    header(name) {
      const value = req.headers[name];
      return typeof value === 'string' && value !== '' ? value : null;
    },
    resetConnection: () => void req.socket.resetAndDestroy(),
  };
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
