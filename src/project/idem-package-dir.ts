import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of the installed idem package (its package.json says `"name": "idem"`): the
 * repository itself in development, `node_modules/idem` in a project of one's own. Found by
 * walking up from this module, which runs both as src/project/*.ts and as dist/src/project/*.js.
 * @throws Error when no such package.json is above this module.
 */
export function idemPackageDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'idem') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no idem package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
