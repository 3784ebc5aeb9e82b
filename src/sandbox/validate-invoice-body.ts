/** A `POST /invoices` body that passed validation; any other field is stored as given. */
export interface SandboxInvoiceBody {
  reference: string;
  type: 'invoice' | 'credit_note';
  [field: string]: unknown;
}

/** One problem in a rejected body, as listed in `{ error: "validation_failed", details }`. */
export interface SandboxValidationDetail {
  field: string;
  message: string;
}

/** Checks only what the sandbox needs: a JSON object with a string `reference` and a known `type`. */
export function validateInvoiceBody(
  body: unknown,
): { ok: true; invoice: SandboxInvoiceBody } | { ok: false; details: SandboxValidationDetail[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, details: [{ field: '(body)', message: 'must be a JSON object' }] };
  }
  const fields = body as Record<string, unknown>;
  const details: SandboxValidationDetail[] = [];
  if (typeof fields.reference !== 'string' || fields.reference === '') {
    details.push({ field: 'reference', message: 'must be a non-empty string' });
  }
  if (fields.type !== 'invoice' && fields.type !== 'credit_note') {
    details.push({ field: 'type', message: 'must be "invoice" or "credit_note"' });
  }
  return details.length === 0 ? { ok: true, invoice: fields as SandboxInvoiceBody } : { ok: false, details };
}
