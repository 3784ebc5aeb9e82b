/** A `POST /invoices` or `PUT /invoices/:id` body that passed validation; any other field is stored as given. */
export interface SandboxInvoiceBody {
  reference: string;
  /** `item`: a catalogue item (`POST /items`), kept in the same store. */
  type: 'invoice' | 'credit_note' | 'item';
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
): { ok: true; fields: SandboxInvoiceBody } | { ok: false; details: SandboxValidationDetail[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, details: [{ field: '(body)', message: 'must be a JSON object' }] };
  }
  const fields = body as Record<string, unknown>;
  const details: SandboxValidationDetail[] = [];
  if (typeof fields.reference !== 'string' || fields.reference === '') {
    details.push({ field: 'reference', message: 'must be a non-empty string' });
  }
  if (fields.type !== 'invoice' && fields.type !== 'credit_note' && fields.type !== 'item') {
    details.push({ field: 'type', message: 'must be "invoice", "credit_note" or "item"' });
  }
  return details.length === 0 ? { ok: true, fields: fields as SandboxInvoiceBody } : { ok: false, details };
}

/**
 * Checks a `PATCH /invoices/:id` body: a JSON object whose `reference` and `type`, where given,
 * are valid as in {@link validateInvoiceBody}; the fields it gives replace the record's.
 */
export function validatePatch(body: unknown): { ok: true; fields: Partial<SandboxInvoiceBody> } | { ok: false; details: SandboxValidationDetail[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, details: [{ field: '(body)', message: 'must be a JSON object' }] };
  }
  const fields = body as Record<string, unknown>;
  const validation = validateInvoiceBody({ reference: 'R', type: 'invoice', ...fields });
  return validation.ok ? { ok: true, fields } : validation;
}
