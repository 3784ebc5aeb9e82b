import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Whether the project in `projectDir` can import `name` (found in its `node_modules` or a
 * parent's, as Node resolves a bare import from a module there): for telling a user what to
 * install before the files `idem new` wrote can run. idem itself never imports such a package.
 */
export function projectHasPackage(projectDir: string, name: string): boolean {
  try {
    createRequire(path.join(projectDir, 'package.json')).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}
