import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

// idem as a registry user gets it: `npm pack` of this checkout, the tarball installed into an
// empty project in the OS temp dir (no link to the checkout, no node_modules above it), then
// docs/writing-a-pipeline.md's "idem in a repository of your own" followed: new → migrate → run
// → check → the generated test → tsc. The project's tsconfig.json is the one the doc shows.
// One pack and one `npm install` (from npm's cache where it can) serve the whole file.

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The Node running the suite first on PATH, as `npx` in a project that pins Node would have it. */
const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;

/**
 * npm's environment: this process's (a proxy, a certificate authority, npm's own NPM_CONFIG_*),
 * less the npm_* settings an outer `npm test` passes down to its scripts.
 */
const NPM_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));

/** Runs a command to its end (no shell), with the suite's Node first on PATH. */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  const base = command === 'npm' ? NPM_ENV : { HOME: process.env.HOME };
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...base, PATH, NO_COLOR: '1', CI: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The run's summary log line (stage `summary`) among the JSON lines idem logs on stderr. */
function summaryOf(ran: Ran): Record<string, unknown> {
  const summary = ran.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line.stage === 'summary');
  if (!summary) throw new Error(`no summary line\n${ran.stderr}`);
  return summary;
}

/** Fails with the command's output when it did not exit 0. */
function ok(what: string, ran: Ran): Ran {
  expect(ran.code, `${what}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
  return ran;
}

/** The ```json block of the doc's "idem in a repository of your own": the project's tsconfig.json. */
function docTsconfig(): string {
  const doc = readFileSync(path.join(PROJECT_DIR, 'docs/writing-a-pipeline.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## idem in a repository of your own'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error('docs/writing-a-pipeline.md: no ```json tsconfig in "idem in a repository of your own"');
  return `${block[1]}\n`;
}

/** The machine's own `node` when it is older than 22, found on PATH outside node_modules/.bin. */
function olderNodeOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const node = path.join(dir, 'node');
    if (dir.split(path.sep).includes('node_modules') || !existsSync(node)) continue;
    if (Number(execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]) < 22) return node;
  }
  return undefined;
}

const manifest = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('the packed package, installed into a project of its own', () => {
  let work: string;
  let project: string;
  let tarballFiles: string[];
  /** The project's installed `idem` command (node_modules/.bin/idem, as `npx idem` finds it). */
  const idem = (args: readonly string[], env: Record<string, string> = {}) => run(path.join(project, 'node_modules/.bin/idem'), args, project, env);

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'idem-packed-'));
    // The suite's `npm test` has just built dist/, so the pack skips `prepack` (a clean build that
    // would rewrite dist/ under the other test files' CLI processes).
    const packed = ok('npm pack', await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], PROJECT_DIR));
    const [tarball] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarballFiles = tarball!.files.map((file) => file.path);

    // npm init -y; npm pkg set type=module; npm i <tarball> zod; npm i -D vitest msw typescript
    // @types/node; npm install-scripts deny better-sqlite3: written as the package.json they end
    // in, and installed at once. The test tools at the versions idem itself is tested with.
    project = path.join(work, 'my-etl');
    mkdirSync(project);
    ok('npm init', await run('npm', ['init', '-y'], project));
    const pinned = (name: string) => `${name}@${manifest.devDependencies[name] ?? manifest.dependencies[name]}`;
    ok('npm pkg set', await run('npm', ['pkg', 'set', 'type=module'], project));
    ok('npm pkg set', await run('npm', ['pkg', 'set', 'allowScripts.better-sqlite3=false', '--json'], project));
    const installed = ok(
      'npm install',
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(work, tarball!.filename), pinned('zod')], project),
    );
    const tools = ok(
      'npm install -D',
      await run('npm', ['install', '-D', '--prefer-offline', '--no-audit', '--no-fund', ...['vitest', 'msw', 'typescript', '@types/node'].map(pinned)], project),
    );
    // No install script is left for npm to warn about (idem's old `prepare` build was one).
    expect(installed.stderr).not.toContain('install-scripts');
    expect(tools.stderr).not.toContain('install-scripts');
    writeFileSync(path.join(project, 'tsconfig.json'), docTsconfig());
    copyFileSync(path.join(PROJECT_DIR, 'fixtures/samples/airports.csv'), path.join(project, 'airports.csv'));
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships what a user runs: the built code, its command, idem’s migrations and the sandbox catalogue, no tests or sources', () => {
    for (const file of ['bin/idem.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/testing/index.js', 'dist/src/runner/read-rows-worker.js', 'fixtures/online-retail/products.json', 'README.md', 'package.json']) {
      expect(tarballFiles).toContain(file);
    }
    const frameworkMigrations = tarballFiles.filter((file) => file.startsWith('migrations/framework/'));
    expect(frameworkMigrations.length).toBeGreaterThan(0);
    for (const file of frameworkMigrations) expect(tarballFiles).toContain(`dist/${file.replace(/\.ts$/, '.js')}`);
    const unwanted = tarballFiles.filter((file) => /^(test|bench|src|scripts|pipelines|examples)\/|^migrations\/[^/]+$|\.map$|tsbuildinfo/.test(file) || (file.startsWith('fixtures/') && file !== 'fixtures/online-retail/products.json'));
    expect(unwanted).toEqual([]);
  });

  it('is a copy in node_modules, not a link to the checkout, and every package its built code imports is installed with it', () => {
    const installedDir = path.join(project, 'node_modules/idem');
    expect(lstatSync(installedDir).isSymbolicLink()).toBe(false);
    expect(realpathSync(installedDir).startsWith(realpathSync(work))).toBe(true);
    for (const name of Object.keys(manifest.dependencies)) expect(existsSync(path.join(project, 'node_modules', name, 'package.json')), name).toBe(true);
  });

  it('new → migrate → run (a rerun is a no-op) → check → the generated test → tsc --noEmit', { timeout: 600_000 }, async () => {
    ok('idem new', await idem(['new', 'airports', '--csv', 'airports.csv', '--key', 'iata']));
    const migrated = ok('idem migrate', await idem(['migrate'], { LOG_LEVEL: 'info' }));
    // idem's own tables from the package (its built migrations), the pipeline's from the project's source.
    expect(migrated.stderr).toMatch(/"applied":\["20261130000000_create_idem_tables",.*"\d{14}_create_airports"\]/);

    const first = ok('idem run', await idem(['run', 'airports', '--file', 'airports.csv'], { LOG_LEVEL: 'info' }));
    expect(summaryOf(first)).toMatchObject({ outcome: 'completed', counts: { upsert: { inserted: 20, updated: 0, unchanged: 0 } } });
    const again = ok('idem run again', await idem(['run', 'airports', '--file', 'airports.csv'], { LOG_LEVEL: 'info' }));
    expect(summaryOf(again).outcome).toBe('noop');
    // Read on a thread of its own, started from the installed package, loading the project's module.
    const threaded = ok('idem run --force, 2 reading threads', await idem(['run', 'airports', '--file', 'airports.csv', '--force'], { LOG_LEVEL: 'info', IDEM_READ_THREADS: '2' }));
    expect(summaryOf(threaded)).toMatchObject({ outcome: 'completed', counts: { extract: { rows: 20, quarantined: 0 }, upsert: { inserted: 0, updated: 0, unchanged: 20 } } });
    expect(threaded.stderr).toMatch(/"readThread":[1-9]\d*,"msg":"reading the source on thread/);

    expect(ok('idem check', await idem(['check', 'airports'])).stdout).toContain('1 pipeline checked: no problems');

    // npx vitest run: the generated test, through idem/testing, runs the installed idem.
    const tested = ok('vitest run', await run(path.join(project, 'node_modules/.bin/vitest'), ['run'], project));
    expect(tested.stdout).toMatch(/Tests\s+1 passed \(1\)/);

    ok('tsc --noEmit', await run(path.join(project, 'node_modules/.bin/tsc'), ['--noEmit'], project));
  });

  it('names what keeps a TypeScript module from loading, with exit 2: no type stripping, "type": "commonjs", an enum', async () => {
    const unstripped = await idem(['run', 'airports', '--file', 'airports.csv'], { NODE_OPTIONS: '--no-experimental-strip-types' });
    expect([unstripped.code, unstripped.stdout]).toEqual([2, '']);
    expect(unstripped.stderr).toMatch(/^idem: pipelines\/airports\.ts: this Node \(\d+\.\d+\.\d+\) loads no TypeScript; .* Node 22\.18 and newer .*\n$/);

    ok('npm pkg set', await run('npm', ['pkg', 'set', 'type=commonjs'], project));
    try {
      const commonjs = await idem(['check', 'airports']);
      expect(commonjs.code).toBe(2);
      expect(commonjs.stdout).toContain('pipelines/airports.ts: package.json says "type": "commonjs"');
      expect(commonjs.stdout).toContain('set "type": "module" (npm pkg set type=module)');
    } finally {
      ok('npm pkg set', await run('npm', ['pkg', 'set', 'type=module'], project));
    }

    const enumerated = path.join(project, 'pipelines/colors.ts');
    writeFileSync(enumerated, "import { definePipeline } from 'idem';\n\nenum Color { Red }\nexport const pipeline = definePipeline(Color.Red as never);\n");
    try {
      const refused = await idem(['run', 'colors', '--file', 'airports.csv']);
      expect([refused.code, refused.stdout]).toEqual([2, '']);
      expect(refused.stderr).toMatch(/^idem: pipelines\/colors\.ts, line 3: TypeScript enum is not supported in strip-only mode; .*erasableSyntaxOnly/);
    } finally {
      rmSync(enumerated);
    }
  });

  const older = olderNodeOnPath();
  it.skipIf(!older)(`on a Node older than 22 (${older ?? 'none on PATH'}), says what a project of its own needs, not \`npx idem\``, async () => {
    const refused = await run(older!, [path.join(project, 'node_modules/idem/bin/idem.js'), '--version'], project);
    expect([refused.code, refused.stdout]).toEqual([2, '']);
    expect(refused.stderr).toMatch(/^idem: this is Node \d+\.\d+\.\d+, and in a project of your own idem needs Node 22\.18 or newer .*`npm i -D node@24`/);
    expect(refused.stderr).not.toContain('run it as `npx idem');
  });
});

