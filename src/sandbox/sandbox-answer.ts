import { STATUS_CODES } from 'node:http';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { SandboxStoredResponse } from './sandbox-idempotency-store.ts';
import type { SandboxValidationDetail } from './validate-invoice-body.ts';

/** One answer of the sandbox: a status, a JSON body as text, and any extra headers. */
export interface SandboxAnswer extends SandboxStoredResponse {
  readonly headers?: OutgoingHttpHeaders;
}

/** An answer with `body` as JSON. */
export function jsonAnswer(status: number, body: unknown, headers?: OutgoingHttpHeaders): SandboxAnswer {
  return { status, json: JSON.stringify(body), ...(headers ? { headers } : {}) };
}

/** `{ error: "service_unavailable" }` and the like, from the standard status text. */
export function errorBody(status: number): { error: string } {
  return { error: (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z0-9]+/g, '_') };
}

/** An answer with the standard error body of `status` (see {@link errorBody}). */
export function errorAnswer(status: number, headers?: OutgoingHttpHeaders): SandboxAnswer {
  return jsonAnswer(status, errorBody(status), headers);
}

/** 400 `{ error: "validation_failed", details }`: what the sandbox answers to a body or query it rejects. */
export function validationFailedAnswer(details: readonly SandboxValidationDetail[]): SandboxAnswer {
  return jsonAnswer(400, { error: 'validation_failed', details });
}

/** Writes `answer` as a JSON response; nothing when the client is gone already. */
export function sendAnswer(res: ServerResponse, answer: SandboxAnswer): void {
  if (res.destroyed) return;
  res.writeHead(answer.status, { ...answer.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer.json) });
  res.end(answer.json);
}
