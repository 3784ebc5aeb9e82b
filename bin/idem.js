#!/usr/bin/env node
// The `idem` command: runs the build in dist/ (made by `npm ci` / `npm run build`).
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22.1+ keeps V8's compiled code of every module between runs (in the OS temp dir, or
// NODE_COMPILE_CACHE), which shortens start-up. Node 20 has no such API: then this does nothing.
// https://nodejs.org/api/module.html#moduleenablecompilecachecachedir
if (typeof module.enableCompileCache === 'function') module.enableCompileCache();

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('idem: dist/ is missing; run `npm run build` (npm ci runs it for you)\n');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exit(await main(process.argv.slice(2)));
