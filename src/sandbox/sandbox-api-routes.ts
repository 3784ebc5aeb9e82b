import type { ServerResponse } from 'node:http';
import { errorAnswer, jsonAnswer, sendAnswer, validationFailedAnswer, type SandboxAnswer } from './sandbox-answer.ts';
import type { SandboxBehaviour } from './sandbox-behaviour.ts';
import type { SandboxFault } from './sandbox-fault.ts';
import type { SandboxFaultInjection } from './sandbox-fault-injection.ts';
import type { SandboxFaultQueue } from './sandbox-fault-queue.ts';
import type { SandboxPauses } from './sandbox-pauses.ts';
import type { SandboxRequest } from './sandbox-request.ts';
import type { SandboxRequestLog, SandboxState } from './sandbox-state.ts';
import { pageSandboxProducts } from './page-sandbox-products.ts';
import { validateInvoiceBody, validatePatch, type SandboxInvoiceBody } from './validate-invoice-body.ts';

/**
 * What a `POST /invoices`, `PUT` or `PATCH /invoices/:id` does, decided when it arrives: answer,
 * drop the connection, or write (create, replace or merge into the record).
 */
type WritePlan = { kind: 'answer'; answer: SandboxAnswer } | { kind: 'reset' } | { kind: 'write'; fields: Record<string, unknown> } | { kind: 'delete'; id: string };

/**
 * The `:id` of `/invoices/:id` (or of `/items/:id`: catalogue items are records of the same
 * store), or undefined for any other path.
 */
function invoiceId(pathname: string): string | undefined {
  return /^\/(?:invoices|items)\/([^/]+)$/.exec(pathname)?.[1];
}

/** `/invoices`, or `/items`, its twin for catalogue items. */
function isCollection(pathname: string): boolean {
  return pathname === '/invoices' || pathname === '/items';
}

/** The parts of a running sandbox the API routes use. */
export interface SandboxApiParts {
  readonly state: SandboxState;
  readonly behaviour: SandboxBehaviour;
  readonly faults: SandboxFaultQueue;
  readonly injection: SandboxFaultInjection;
  readonly pauses: SandboxPauses;
  /** Sees every logged API request, before it is processed. */
  readonly onRequest?: (request: SandboxRequestLog) => void;
}

/**
 * The accounting API a destination stand-in serves (every route but `/health` and `/_admin/…`):
 * each request is logged, counted against the rate limit, delayed by the latency and exposed to
 * the scripted faults of its route. See `startSandboxApi` for the routes.
 */
export class SandboxApiRoutes {
  readonly #parts: SandboxApiParts;

  constructor(parts: SandboxApiParts) {
    this.#parts = parts;
  }

  async handle(request: SandboxRequest, res: ServerResponse): Promise<void> {
    const { state, behaviour, pauses } = this.#parts;
    const { method, url } = request;
    const logged: SandboxRequestLog = {
      method,
      path: url.pathname,
      query: url.search,
      reference: this.#loggedReference(request),
      idempotencyKey: request.header('idempotency-key'),
      at: new Date().toISOString(),
    };
    state.logRequest(logged);
    this.#parts.onRequest?.(logged);
    if (!behaviour.rateLimit.admit()) {
      await pauses.pause(behaviour.latencyMs);
      return sendAnswer(res, errorAnswer(429, { 'retry-after': '1' }));
    }
    if (method === 'POST' && isCollection(url.pathname)) return this.#writeInvoice(request, res, undefined);
    const id = invoiceId(url.pathname);
    if ((method === 'PUT' || method === 'PATCH' || method === 'DELETE') && id !== undefined) return this.#writeInvoice(request, res, id);
    if (method === 'GET' && url.pathname === '/products') return this.#getProducts(request, res);
    await pauses.pause(behaviour.latencyMs);
    sendAnswer(res, this.#lookUpInvoices(request));
  }

  /** The body's `reference` for a write (else the reference of the record a PUT or PATCH names), the `?reference=` query for GET. */
  #loggedReference(request: SandboxRequest): string | null {
    const { method, url } = request;
    if (method === 'GET') return url.searchParams.get('reference');
    if (method === 'POST') return request.reference ?? null;
    const id = invoiceId(url.pathname);
    if ((method !== 'PUT' && method !== 'PATCH' && method !== 'DELETE') || id === undefined) return null;
    return request.reference ?? this.#parts.state.record(id)?.reference ?? null;
  }

  /**
   * `POST /invoices` (`id` undefined: create), `PUT /invoices/:id` (replace), `PATCH
   * /invoices/:id` (merge) or `DELETE /invoices/:id` (the record is gone: 200 `{ id, deleted:
   * true }`; a repeat under the same idempotency key replays it, any other 404s), and their
   * `/items` twins.
   */
  async #writeInvoice(request: SandboxRequest, res: ServerResponse, id: string | undefined): Promise<void> {
    const { state, behaviour, faults, injection, pauses } = this.#parts;
    const key = behaviour.idempotencyKeys ? request.header('idempotency-key') : null;
    const route = id === undefined ? 'POST /invoices' : request.method === 'DELETE' ? 'DELETE /invoices/:id' : 'PUT /invoices/:id';
    const fault = faults.take(route, this.#loggedReference(request) ?? undefined);
    // Planned before the latency, so the key is reserved (in flight) while the request "executes".
    const plan = this.#planWrite(request, key, fault, id);
    await pauses.pause(behaviour.latencyMs + injection.delayMs(fault));
    if (plan.kind === 'reset') return request.resetConnection();
    let answer: SandboxAnswer;
    if (plan.kind === 'delete') {
      answer = this.#parts.state.deleteRecord(plan.id) ? jsonAnswer(200, { id: plan.id, deleted: true }) : errorAnswer(404);
      if (key !== null) state.idempotency.complete(key, answer);
    } else if (plan.kind === 'write') {
      const json = id === undefined ? state.createRecordJson(plan.fields as SandboxInvoiceBody) : state.updateRecordJson(id, plan.fields, request.method === 'PUT' ? 'replace' : 'merge');
      // A record voided while the update "executed" is gone: nothing was written.
      answer = json === undefined ? errorAnswer(404) : { status: id === undefined ? 201 : 200, json };
      if (key !== null) state.idempotency.complete(key, answer);
    } else {
      answer = plan.answer;
    }
    const sent = await injection.after(fault, request, answer);
    if (sent) sendAnswer(res, sent);
  }

  #planWrite(request: SandboxRequest, key: string | null, fault: SandboxFault | undefined, id: string | undefined): WritePlan {
    const instead = this.#parts.injection.before(fault);
    if (instead === 'reset') return { kind: 'reset' };
    if (instead) return { kind: 'answer', answer: instead };
    const current = id === undefined ? undefined : this.#parts.state.record(id);
    // Stripe saves no result for a request that failed validation, so the key is not reserved.
    if (request.method === 'DELETE') {
      // A repeat of a deletion under its key replays the first answer, though the record is gone.
      const replay = key !== null && this.#parts.state.idempotency.get(key) !== undefined;
      if (!replay && current === undefined) return { kind: 'answer', answer: errorAnswer(404) };
      const keyed = key === null ? undefined : this.#parts.state.idempotency.admit(key, request.raw, request.body);
      return keyed ? { kind: 'answer', answer: keyed } : { kind: 'delete', id: id! };
    }
    if (id !== undefined && current === undefined) return { kind: 'answer', answer: errorAnswer(404) };
    const validation = request.method === 'PATCH' ? validatePatch(request.body) : validateInvoiceBody(request.body);
    if (!validation.ok) return { kind: 'answer', answer: validationFailedAnswer(validation.details) };
    if (current !== undefined && validation.fields.reference !== undefined && validation.fields.reference !== current.reference) {
      return { kind: 'answer', answer: validationFailedAnswer([{ field: 'reference', message: `must be the record's reference, ${JSON.stringify(current.reference)}` }]) };
    }
    const keyed = key === null ? undefined : this.#parts.state.idempotency.admit(key, request.raw, request.body);
    return keyed ? { kind: 'answer', answer: keyed } : { kind: 'write', fields: validation.fields };
  }

  async #getProducts(request: SandboxRequest, res: ServerResponse): Promise<void> {
    const { state, behaviour, faults, injection, pauses } = this.#parts;
    const fault = faults.take('GET /products', undefined);
    await pauses.pause(behaviour.latencyMs + injection.delayMs(fault));
    // A GET commits nothing: "after commit" is just a reset, a hang or a status here.
    const instead = injection.before(fault);
    if (instead === 'reset') return request.resetConnection();
    if (instead) return sendAnswer(res, instead);
    const host = request.header('host');
    const page = pageSandboxProducts(state.products(), request.url, host === null ? undefined : `http://${host}`);
    const sent = await injection.after(fault, request, jsonAnswer(page.status, page.body, page.headers));
    if (sent) sendAnswer(res, sent);
  }

  /** `GET /invoices?reference=R`, `GET /invoices/:id` (and their `/items` twins); 404 for anything else. */
  #lookUpInvoices(request: SandboxRequest): SandboxAnswer {
    const { state } = this.#parts;
    const { method, url } = request;
    if (method === 'GET' && isCollection(url.pathname)) {
      const reference = url.searchParams.get('reference');
      return jsonAnswer(200, { data: reference === null ? state.records() : state.recordsByReference(reference) });
    }
    const id = invoiceId(url.pathname);
    const record = method === 'GET' && id !== undefined ? state.record(id) : undefined;
    return record ? jsonAnswer(200, record) : errorAnswer(404);
  }
}
