import type { SandboxValidationDetail } from './validate-invoice-body.ts';

/**
 * One product of the sandbox catalogue (`GET /products`). The bundled catalogue has
 * `{ stock_code, description, unit_price, updated_at }` with strings as the data set writes them
 * (a price is a decimal string such as `"2.95"`; `updated_at` an ISO 8601 UTC instant, which the
 * sandbox sets on every change when the change does not give one); any other field, and any
 * value of those, is served as given, so tests can plant a bad item for the importer to quarantine.
 */
export interface SandboxProduct {
  stock_code: string;
  [field: string]: unknown;
}

/**
 * Checks a catalogue (`PUT /_admin/products`, `setProducts`): a JSON array of objects, each with
 * a non-empty string `stock_code`, no code twice (codes are compared exactly, case included).
 */
export function validateSandboxProducts(
  body: unknown,
): { ok: true; products: SandboxProduct[] } | { ok: false; details: SandboxValidationDetail[] } {
  if (!Array.isArray(body)) return { ok: false, details: [{ field: '(body)', message: 'must be a JSON array of products' }] };
  const details: SandboxValidationDetail[] = [];
  const seen = new Set<string>();
  body.forEach((product: unknown, i) => {
    if (product === null || typeof product !== 'object' || Array.isArray(product)) {
      details.push({ field: `[${i}]`, message: 'must be a JSON object' });
      return;
    }
    const code = (product as Record<string, unknown>).stock_code;
    if (typeof code !== 'string' || code === '') details.push({ field: `[${i}].stock_code`, message: 'must be a non-empty string' });
    else if (seen.has(code)) details.push({ field: `[${i}].stock_code`, message: `duplicates ${JSON.stringify(code)}` });
    else seen.add(code);
  });
  return details.length === 0 ? { ok: true, products: body as SandboxProduct[] } : { ok: false, details };
}
