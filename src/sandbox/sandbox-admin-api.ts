import { z } from 'zod';
import { errorAnswer, jsonAnswer, validationFailedAnswer, type SandboxAnswer } from './sandbox-answer.ts';
import { sandboxAdminConfig } from './sandbox-admin-config.ts';
import type { SandboxBehaviour } from './sandbox-behaviour.ts';
import type { SandboxFaultQueue } from './sandbox-fault-queue.ts';
import type { SandboxRequest } from './sandbox-request.ts';
import type { SandboxState } from './sandbox-state.ts';
import type { SandboxValidationDetail } from './validate-invoice-body.ts';
import { validateSandboxProducts } from './validate-sandbox-products.ts';

/** A `PATCH /_admin/products/:code` body: any fields, with any values (tests plant bad ones). */
const productFields = z.record(z.string(), z.unknown());

/** The parts of a running sandbox the admin API reads and changes. */
export interface SandboxAdminParts {
  readonly state: SandboxState;
  readonly behaviour: SandboxBehaviour;
  readonly faults: SandboxFaultQueue;
  /** Clears records, keys, counts and faults (see `SandboxApi.reset`). */
  readonly reset: () => void;
}

/**
 * The admin routes (`/_admin/…`), for a test or benchmark driving a sandbox in another process.
 * They are not logged, and neither latency, rate limit nor faults apply to them. A body that
 * fails validation gets 400 `{ error: "validation_failed", details: [{ field, message }] }`
 * naming each bad field (`faults[0].kind`); see `startSandboxApi` for the routes.
 */
export class SandboxAdminApi {
  readonly #parts: SandboxAdminParts;

  constructor(parts: SandboxAdminParts) {
    this.#parts = parts;
  }

  answer(request: SandboxRequest): SandboxAnswer {
    const { state, behaviour, faults } = this.#parts;
    const { method } = request;
    const path = request.url.pathname;
    if (method === 'GET' && path === '/_admin/stats') return jsonAnswer(200, state.stats());
    if (method === 'GET' && path === '/_admin/records') return jsonAnswer(200, { data: state.records() });
    if (method === 'POST' && path === '/_admin/reset') {
      this.#parts.reset();
      return jsonAnswer(200, { ok: true });
    }
    if (method === 'POST' && path === '/_admin/faults') {
      const config = sandboxAdminConfig.safeParse(request.body);
      if (!config.success) return validationFailedAnswer(validationDetails(config.error));
      behaviour.configure(config.data);
      if (config.data.faults) {
        faults.clear();
        faults.add(config.data.faults);
      }
      return jsonAnswer(200, { settings: behaviour.settings(), faults: faults.pending() });
    }
    if (method === 'GET' && path === '/_admin/products') return jsonAnswer(200, { data: state.products() });
    if (method === 'PUT' && path === '/_admin/products') {
      const validation = validateSandboxProducts(request.body);
      if (!validation.ok) return validationFailedAnswer(validation.details);
      state.setProducts(validation.products);
      return jsonAnswer(200, { products: validation.products.length });
    }
    const code = /^\/_admin\/products\/([^/]+)$/.exec(path)?.[1];
    if (method === 'PATCH' && code !== undefined) {
      const fields = productFields.safeParse(request.body);
      if (!fields.success) return validationFailedAnswer([{ field: '(body)', message: 'must be a JSON object of fields' }]);
      const product = state.updateProduct(decodeURIComponent(code), fields.data);
      return product ? jsonAnswer(200, product) : errorAnswer(404);
    }
    return errorAnswer(404);
  }
}

/** zod's issues as `{ field, message }`: `latencyMs`, `faults[0].kind`, or `(body)` for the body as a whole. */
function validationDetails(error: z.ZodError): SandboxValidationDetail[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: fieldName([...issue.path, key]), message: 'is not a known field' }))
      : [{ field: fieldName(issue.path), message: issue.message }],
  );
}

function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(body)';
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('');
}
