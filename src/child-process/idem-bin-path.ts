import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The path of idem's own `bin/idem.js`, the command a scheduler runs. Found by walking up from
 * this module to idem's package directory, because the module runs both as src/child-process/*.ts and
 * as dist/src/child-process/*.js.
 * @throws Error when no package directory with a bin/idem.js is found above this module.
 */
export function idemBinPath(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const bin = path.join(dir, 'bin', 'idem.js');
    if (existsSync(path.join(dir, 'package.json')) && existsSync(bin)) return bin;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no bin/idem.js above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
