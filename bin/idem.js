#!/usr/bin/env node
// The `idem` command: runs the build in dist/ (made by `npm run build`, `npm test` or `npm pack`).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The embedded default's driver, better-sqlite3 13, needs Node 22 or newer (package.json `engines`
// says the same); an older Node would die in it with a segfault. In idem's own repository,
// `npx idem` and `npm run idem` put node_modules/.bin first on PATH, so they run the Node that
// package.json pins as a devDependency. A project of its own (the current directory's
// package.json is another one) has no such Node unless it pins one the same way, and needs 22.18
// or newer: idem loads its TypeScript modules with Node's type stripping
// (src/project/import-project-module.ts).
const MIN_NODE_MAJOR = 22;
if (Number(process.versions.node.split('.')[0]) < MIN_NODE_MAJOR) {
  process.stderr.write(
    insideIdemRepository()
      ? `idem: this is Node ${process.versions.node}, and idem runs on Node ${MIN_NODE_MAJOR} or newer; ` +
          "run it as `npx idem …` or `npm run idem -- …`, which use the project's own Node from node_modules/.bin\n"
      : `idem: this is Node ${process.versions.node}, and in a project of your own idem needs Node 22.18 or newer (it loads your TypeScript pipelines with Node's type stripping); ` +
          'install one, or pin one in the project with `npm i -D node@24`, which `npx idem …` then runs on\n',
  );
  process.exit(2);
}

/** Whether the nearest package.json above the current directory is idem's own (this checkout's). */
function insideIdemRepository() {
  const idemDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir === idemDir;
    if (path.dirname(dir) === dir) return false;
  }
}

// Node 22.1+ keeps V8's compiled code of every module between runs (in the OS temp dir, or
// NODE_COMPILE_CACHE), which shortens start-up: a no-op's CPU by about 4% (bench/README.md, "Fourth
// session (issue 29): no-op"). The temp dir's node-compile-cache/ belongs to the first user who
// ran Node with it (mode 0755), and for every other user (a scheduler's own account after a
// person's run) Node turns the cache off, silently. Such a user keeps one in its own cache
// directory ($XDG_CACHE_HOME, else ~/.cache), if it has one; a NODE_COMPILE_CACHE that fails
// stays as it is.
// https://nodejs.org/api/module.html#moduleenablecompilecachecachedir
if (typeof module.enableCompileCache === 'function') {
  const failed = module.enableCompileCache().status === module.constants.compileCacheStatus.FAILED;
  if (failed && !process.env.NODE_COMPILE_CACHE) {
    const cacheHome = userCacheHome();
    if (cacheHome !== undefined) module.enableCompileCache(path.join(cacheHome, 'idem', 'node-compile-cache'));
  }
}

/** The user's cache directory: $XDG_CACHE_HOME, else ~/.cache; undefined when the user has no home. */
function userCacheHome() {
  if (process.env.XDG_CACHE_HOME) return process.env.XDG_CACHE_HOME;
  try {
    return path.join(homedir(), '.cache');
  } catch {
    return undefined;
  }
}

// idem tunes its own V8 heap (it is an application, not a library). V8 on Node 24 lets the young
// generation (new space: two semi-spaces) grow to 64 MB under a steady stream of short-lived
// objects, which a year's import is, and that memory stays resident for the rest of the process.
// Once a GC finds new space at IDEM_YOUNG_GENERATION_MB (default 16) MB or more, it stops growing
// (V8's semi-space growth factor set to 1; --max-semi-space-size itself cannot change once the
// heap exists). Year import, PostgreSQL, two pairs run one after the other: peak RSS 376 / 364 MB
// → 245 / 254 MB, user CPU 10.6 / 8.4 s → 10.3 / 9.1 s (bench/README.md, "Memory").
// IDEM_YOUNG_GENERATION_MB=0 leaves V8's own sizing; a --max-semi-space-size given to node
// (NODE_OPTIONS or the command line) wins.
const youngGenerationMb = Number(process.env.IDEM_YOUNG_GENERATION_MB ?? 16);
const semiSpaceFlag = /--(max|min)-semi-space-size/;
if (youngGenerationMb > 0 && !semiSpaceFlag.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`)) {
  const { default: v8 } = await import('node:v8');
  const { PerformanceObserver } = await import('node:perf_hooks');
  const observer = new PerformanceObserver(() => {
    const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (newSpace !== undefined && newSpace.space_size >= youngGenerationMb * 1024 * 1024) {
      v8.setFlagsFromString('--semi-space-growth-factor=1');
      observer.disconnect();
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('idem: dist/ is missing; run `npm run build`\n');
  process.exit(2);
}
// A reader that goes away (`idem status | head`) is not an error of idem's: stop writing quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
// Process warnings the drivers emit (pg's multi-line SSL-mode notice) are not idem's log lines,
// and stderr carries only those: with LOG_LEVEL=debug each is one JSON line, else none.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (process.env.LOG_LEVEL !== 'debug' && process.env.LOG_LEVEL !== 'trace') return;
  process.stderr.write(`${JSON.stringify({ level: 20, time: Date.now(), msg: `node warning: ${warning.name}: ${warning.message.split('\n')[0]}` })}\n`);
});
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));

// Everything written so far must reach the reader before the process ends: on a pipe, Node
// queues what the reader has not taken yet, and process.exit() would drop it (a `| jq` cut at
// 64 KiB). A write's callback runs once it and every write before it are flushed, or failed
// (the reader went away: EPIPE, nothing more to wait for).
const flushed = (stream) => new Promise((resolve) => stream.write('', () => resolve()));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
