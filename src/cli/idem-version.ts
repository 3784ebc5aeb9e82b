import { readFileSync } from 'node:fs';
import path from 'node:path';
import { idemBinPath } from '../child-process/idem-bin-path.ts';

/**
 * idem's version: `version` of its package.json (the directory above bin/idem.js, found from
 * this module whether it runs from src/ or dist/).
 * @throws Error when package.json cannot be read.
 */
export function idemVersion(): string {
  const packageJson = path.join(path.dirname(path.dirname(idemBinPath())), 'package.json');
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}
