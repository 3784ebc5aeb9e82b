import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateSandboxProducts } from './validate-sandbox-products.ts';
import type { SandboxProduct } from './validate-sandbox-products.ts';

/** The bundled catalogue, relative to idem's package directory (see scripts/derive-products-fixture.ts). */
const PRODUCTS_FIXTURE = path.join('fixtures', 'online-retail', 'products.json');

/**
 * Reads a catalogue file (a JSON array of {@link SandboxProduct}), by default the bundled
 * `fixtures/online-retail/products.json`: 3,922 products of the UCI "Online Retail" data set, each
 * with its latest description and unit price.
 *
 * @throws Error naming the file when it cannot be read, is not JSON, or is not a valid catalogue.
 */
export function loadSandboxProducts(file: string = path.join(packageDir(), PRODUCTS_FIXTURE)): SandboxProduct[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`sandbox catalogue ${file}: ${(error as Error).message}`, { cause: error });
  }
  const validation = validateSandboxProducts(json);
  if (!validation.ok) throw new Error(`sandbox catalogue ${file}: ${validation.details.map((d) => `${d.field} ${d.message}`).join('; ')}`);
  return validation.products;
}

/**
 * idem's package directory: the nearest one above this module with a package.json. Found by
 * walking up because this module runs both as src/sandbox/*.ts and as dist/src/sandbox/*.js.
 */
function packageDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}
