import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalJson } from './canonical-json.ts';
import type { SandboxFault, SandboxFaultRoute, SandboxSettings } from './sandbox-fault.ts';
import { SandboxFaultQueue } from './sandbox-fault-queue.ts';
import type { SandboxStoredResponse } from './sandbox-idempotency-store.ts';
import { loadSandboxProducts } from './load-sandbox-products.ts';
import { pageSandboxProducts } from './page-sandbox-products.ts';
import { SandboxState } from './sandbox-state.ts';
import type { SandboxRequestLog } from './sandbox-state.ts';
import { TokenBucket } from './token-bucket.ts';
import { validateInvoiceBody } from './validate-invoice-body.ts';
import type { SandboxInvoiceBody } from './validate-invoice-body.ts';
import { validateSandboxProducts } from './validate-sandbox-products.ts';
import type { SandboxProduct } from './validate-sandbox-products.ts';

/** Where to listen, the initial {@link SandboxSettings}, and a hook seeing every logged API request. */
export interface SandboxApiOptions extends SandboxSettings {
  /** TCP port; default 0 = a free port chosen by the OS. */
  port?: number;
  /** Interface to bind; default '127.0.0.1' (loopback only). */
  host?: string;
  /**
   * The product catalogue `GET /products` starts with (and returns to on `reset()`); default the
   * bundled fixtures/online-retail/products.json (see `loadSandboxProducts`).
   */
  products?: readonly SandboxProduct[];
  onRequest?: (request: SandboxRequestLog) => void;
}

/** A running sandbox accounting API. */
export interface SandboxApi {
  /** Base URL without trailing slash, e.g. 'http://127.0.0.1:54321'. */
  readonly url: string;
  readonly port: number;
  readonly state: SandboxState;
  /** Changes the given settings only; a new `maxRequestsPerSecond` starts from a full bucket. */
  configure(settings: SandboxSettings): void;
  /** Appends scripted faults to the queue. */
  addFaults(faults: readonly SandboxFault[]): void;
  /** Clears records, idempotency keys, counts and queued faults, and restores the initial catalogue; settings stay. */
  reset(): void;
  /** Stops listening and destroys every open socket, hung requests included. Safe to call twice. */
  close(): Promise<void>;
}

type StoredAnswer = SandboxStoredResponse & { headers?: OutgoingHttpHeaders };
type PostPlan = ({ kind: 'answer' } & StoredAnswer) | { kind: 'reset' } | { kind: 'create'; invoice: SandboxInvoiceBody };

const FAULT_KINDS: ReadonlySet<unknown> = new Set<SandboxFault['kind']>(['status', 'reset', 'reset-after-commit', 'hang-after-commit']);
const FAULT_ROUTES: ReadonlySet<unknown> = new Set<SandboxFaultRoute>(['POST /invoices', 'GET /products']);

/** The bundled catalogue, read once per process (the state keeps frozen copies, so sharing it is safe). */
let bundledProducts: SandboxProduct[] | undefined;

/**
 * Starts a loopback HTTP server that behaves like an accounting API, for dev, demos and tests.
 *
 * API routes: `POST /invoices` (201 `{ id, created_at, ...body }`; 400 `{ error: "validation_failed",
 * details }` without a string `reference` or a `type` of "invoice" | "credit_note"),
 * `GET /invoices?reference=R` (`{ data: [...] }`), `GET /invoices/:id` (record or 404),
 * `DELETE /invoices/:id` (void a record, as an operator at the destination might), and
 * `GET /products`, a product catalogue paged by cursor, page number or `Link` header (see
 * `pageSandboxProducts`).
 * `Idempotency-Key` follows https://docs.stripe.com/api/idempotent_requests: the first response is
 * stored and replayed for the same key and body with `Idempotent-Replayed: true`; a different body
 * (canonical JSON) gets 422 `idempotency_key_reused`; a key still in flight gets 409.
 *
 * Admin routes, for a sandbox in another process: `GET /_admin/stats` ({@link SandboxStats}),
 * `GET /_admin/records` (`{ data }`), `POST /_admin/reset`, `POST /_admin/faults` with
 * `{ latencyMs?, idempotencyKeys?, maxRequestsPerSecond?, faults? }` (given settings change; `faults`
 * replaces the queue), `GET /_admin/products` (`{ data }`), `PUT /_admin/products` (replace the
 * catalogue with a JSON array of products; 200 `{ products: n }`), `PATCH /_admin/products/:code`
 * (merge a JSON object into one product; 200 the product, 404 for an unknown code), and
 * `GET /health`. Every body is JSON. Latency, the rate limit and faults (with `route`) apply to
 * `GET /products` as to the other API routes; admin routes are exempt.
 */
export async function startSandboxApi(options: SandboxApiOptions = {}): Promise<SandboxApi> {
  const state = new SandboxState(options.products ?? (bundledProducts ??= loadSandboxProducts()));
  const faults = new SandboxFaultQueue();
  const settings: Required<SandboxSettings> = { latencyMs: 0, idempotencyKeys: true, maxRequestsPerSecond: 0 };
  let bucket: TokenBucket | undefined;
  // Pending latency and hang timers, each with its promise's reject: close() stops them
  // instead of letting them outlive the server. (A plain timer per request: a promise timer
  // with an AbortSignal listener per request cost a few percent of the sandbox's CPU.)
  const pending = new Map<NodeJS.Timeout, (error: Error) => void>();
  let closing = false;

  const configure = (next: SandboxSettings): void => {
    settings.latencyMs = next.latencyMs ?? settings.latencyMs;
    settings.idempotencyKeys = next.idempotencyKeys ?? settings.idempotencyKeys;
    settings.maxRequestsPerSecond = next.maxRequestsPerSecond ?? settings.maxRequestsPerSecond;
    bucket = settings.maxRequestsPerSecond > 0 ? new TokenBucket(settings.maxRequestsPerSecond) : undefined;
  };
  const reset = (): void => {
    state.clear();
    faults.clear();
  };
  const pause = (ms: number): Promise<void> => {
    if (ms <= 0) return Promise.resolve();
    if (closing) return Promise.reject(new Error('the sandbox is closing'));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(timer);
        resolve();
      }, ms);
      pending.set(timer, reject);
    });
  };

  /** @param raw the body text as received; @param body the same parsed (undefined when not JSON). */
  const planPost = (raw: string, body: unknown, key: string | null, fault: SandboxFault | undefined): PostPlan => {
    if (fault?.kind === 'status') return { kind: 'answer', ...statusFaultAnswer(fault) };
    if (fault?.kind === 'reset') return { kind: 'reset' };
    const validation = validateInvoiceBody(body);
    // Stripe saves no result for a request that failed validation, so the key is not reserved.
    if (!validation.ok) return { kind: 'answer', ...jsonAnswer(400, { error: 'validation_failed', details: validation.details }) };
    if (key === null) return { kind: 'create', invoice: validation.invoice };
    const prior = state.idempotency.get(key);
    if (prior === undefined) {
      state.idempotency.begin(key, raw);
      return { kind: 'create', invoice: validation.invoice };
    }
    // The same text is the same request; otherwise the same JSON up to key order is.
    if (prior.body !== raw && canonicalJson(parseJson(prior.body)) !== canonicalJson(body)) {
      return { kind: 'answer', ...jsonAnswer(422, { error: 'idempotency_key_reused', message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.' }) };
    }
    if (prior.response === undefined) {
      return { kind: 'answer', ...jsonAnswer(409, { error: 'idempotency_key_in_flight', message: 'Another request with this idempotency key is still being processed.' }) };
    }
    return { kind: 'answer', ...prior.response, headers: { 'idempotent-replayed': 'true' } };
  };

  const commit = (invoice: SandboxInvoiceBody, key: string | null): SandboxStoredResponse => {
    const response = { status: 201, json: state.createRecordJson(invoice) };
    if (key !== null) state.idempotency.complete(key, response);
    return response;
  };

  const postInvoice = async (req: IncomingMessage, res: ServerResponse, raw: string, body: unknown, key: string | null): Promise<void> => {
    const fault = faults.take('POST /invoices', referenceOf(body));
    // Planned before the latency so the key is reserved (in flight) while the request "executes".
    const plan = planPost(raw, body, key, fault);
    await pause(settings.latencyMs);
    if (plan.kind === 'reset') return void req.socket.resetAndDestroy();
    const answer: StoredAnswer = plan.kind === 'create' ? commit(plan.invoice, key) : plan;
    if (fault?.kind === 'reset-after-commit') return void req.socket.resetAndDestroy();
    if (fault?.kind === 'hang-after-commit') {
      if (fault.ms === undefined) return;
      await pause(fault.ms);
    }
    sendJson(res, answer.status, answer.json, answer.headers);
  };

  const getProducts = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const fault = faults.take('GET /products', undefined);
    await pause(settings.latencyMs);
    if (fault?.kind === 'status') {
      const answer = statusFaultAnswer(fault);
      return sendJson(res, answer.status, answer.json, answer.headers);
    }
    // A GET commits nothing: "after commit" is just a reset or a hang here.
    if (fault?.kind === 'reset' || fault?.kind === 'reset-after-commit') return void req.socket.resetAndDestroy();
    if (fault?.kind === 'hang-after-commit') {
      if (fault.ms === undefined) return;
      await pause(fault.ms);
    }
    const host = headerValue(req, 'host');
    const page = pageSandboxProducts(state.products(), url, host === null ? undefined : `http://${host}`);
    send(res, page.status, page.body, page.headers);
  };

  const handleApi = async (req: IncomingMessage, res: ServerResponse, url: URL, raw: string): Promise<void> => {
    const body = req.method === 'POST' ? parseJson(raw) : undefined;
    const sentKey = headerValue(req, 'idempotency-key');
    const request: SandboxRequestLog = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      reference: (req.method === 'POST' ? referenceOf(body) : url.searchParams.get('reference')) ?? null,
      idempotencyKey: sentKey,
      at: new Date().toISOString(),
    };
    state.logRequest(request);
    options.onRequest?.(request);
    if (bucket && !bucket.take()) {
      await pause(settings.latencyMs);
      return send(res, 429, errorBody(429), { 'retry-after': '1' });
    }
    if (req.method === 'POST' && url.pathname === '/invoices') {
      return postInvoice(req, res, raw, body, settings.idempotencyKeys ? sentKey : null);
    }
    if (req.method === 'GET' && url.pathname === '/products') return getProducts(req, res, url);
    await pause(settings.latencyMs);
    if (req.method === 'GET' && url.pathname === '/invoices') {
      const reference = url.searchParams.get('reference');
      return send(res, 200, { data: reference === null ? state.records() : state.recordsByReference(reference) });
    }
    const id = /^\/invoices\/([^/]+)$/.exec(url.pathname)?.[1];
    if (req.method === 'DELETE' && id !== undefined) return state.deleteRecord(id) ? send(res, 200, { id, deleted: true }) : send(res, 404, errorBody(404));
    const record = req.method === 'GET' && id !== undefined ? state.record(id) : undefined;
    if (record) return send(res, 200, record);
    send(res, 404, errorBody(404));
  };

  const handleAdmin = (method: string | undefined, path: string, raw: string, res: ServerResponse): void => {
    if (method === 'GET' && path === '/_admin/stats') return send(res, 200, state.stats());
    if (method === 'GET' && path === '/_admin/records') return send(res, 200, { data: state.records() });
    if (method === 'POST' && path === '/_admin/reset') {
      reset();
      return send(res, 200, { ok: true });
    }
    if (method === 'POST' && path === '/_admin/faults') {
      const config = parseJson(raw);
      if (!isAdminConfig(config)) {
        return send(res, 400, { error: 'validation_failed', details: [{ field: '(body)', message: 'expected { latencyMs?: number, idempotencyKeys?: boolean, maxRequestsPerSecond?: number, faults?: SandboxFault[] }' }] });
      }
      configure(config);
      if (config.faults) {
        faults.clear();
        faults.add(config.faults);
      }
      return send(res, 200, { settings, faults: faults.pending() });
    }
    if (method === 'GET' && path === '/_admin/products') return send(res, 200, { data: state.products() });
    if (method === 'PUT' && path === '/_admin/products') {
      const validation = validateSandboxProducts(parseJson(raw));
      if (!validation.ok) return send(res, 400, { error: 'validation_failed', details: validation.details });
      state.setProducts(validation.products);
      return send(res, 200, { products: validation.products.length });
    }
    const code = /^\/_admin\/products\/([^/]+)$/.exec(path)?.[1];
    if (method === 'PATCH' && code !== undefined) {
      const fields = parseJson(raw);
      if (!isObject(fields)) return send(res, 400, { error: 'validation_failed', details: [{ field: '(body)', message: 'must be a JSON object of fields' }] });
      const product = state.updateProduct(decodeURIComponent(code), fields);
      return product ? send(res, 200, product) : send(res, 404, errorBody(404));
    }
    send(res, 404, errorBody(404));
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    readBody(req)
      .then((raw) => {
        if (url.pathname === '/health') return send(res, 200, { status: 'ok' });
        if (url.pathname.startsWith('/_admin/')) return handleAdmin(req.method, url.pathname, raw, res);
        return handleApi(req, res, url, raw);
      })
      .catch((error: unknown) => {
        // A pause stopped by close() just means the sockets are being torn down.
        if (!closing) send(res, 500, { error: 'internal_error', message: String(error) });
      });
  });

  configure(options);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve, reject) => {
      closing = true;
      for (const [timer, fail] of pending) {
        clearTimeout(timer);
        fail(new Error('the sandbox is closing'));
      }
      pending.clear();
      server.close((error) => (error ? reject(error) : resolve()));
      // Hung requests would otherwise keep server.close() waiting for ever.
      server.closeAllConnections();
    });
    return closed;
  };

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    state,
    configure,
    addFaults: (list) => faults.add(list),
    reset,
    close,
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  sendJson(res, status, JSON.stringify(body), headers);
}

/** Answers with a body that is JSON text already. */
function sendJson(res: ServerResponse, status: number, json: string, headers: OutgoingHttpHeaders = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

function jsonAnswer(status: number, body: unknown): SandboxStoredResponse {
  return { status, json: JSON.stringify(body) };
}

/** What a `status` fault answers: its status, its body or the default one, and its `Retry-After`. */
function statusFaultAnswer(fault: Extract<SandboxFault, { kind: 'status' }>): StoredAnswer {
  const headers = fault.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(fault.retryAfterSeconds) };
  return { ...jsonAnswer(fault.status, fault.body ?? errorBody(fault.status)), headers };
}

/** `{ error: "service_unavailable" }` and the like, from the standard status text. */
function errorBody(status: number): { error: string } {
  return { error: (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z0-9]+/g, '_') };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The parsed body, or undefined when it is empty or not JSON (validation then reports it). */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function referenceOf(body: unknown): string | undefined {
  const reference = isObject(body) ? body.reference : undefined;
  return typeof reference === 'string' ? reference : undefined;
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isAdminConfig(value: unknown): value is SandboxSettings & { faults?: SandboxFault[] } {
  return (
    isObject(value) &&
    ['latencyMs', 'maxRequestsPerSecond'].every((field) => value[field] === undefined || (typeof value[field] === 'number' && value[field] >= 0)) &&
    (value.idempotencyKeys === undefined || typeof value.idempotencyKeys === 'boolean') &&
    (value.faults === undefined ||
      (Array.isArray(value.faults) && value.faults.every((fault) => isObject(fault) && FAULT_KINDS.has(fault.kind) && (fault.route === undefined || FAULT_ROUTES.has(fault.route)))))
  );
}
