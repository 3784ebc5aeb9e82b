#!/usr/bin/env node
// The `idem` command: runs the build in dist/ (made by `npm ci` / `npm run build`).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('idem: dist/ is missing; run `npm run build` (npm ci runs it for you)\n');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exit(await main(process.argv.slice(2)));
