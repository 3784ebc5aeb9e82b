import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../errors/usage-error.ts';

/** The first Node release that loads a `.ts` module with no flag (type stripping on by default). */
const TYPE_STRIPPING_NODE = '22.18';

/**
 * Imports one of the project's own TypeScript modules (a pipeline, a migration, a stand-in). The
 * build in `<ownerDir>/dist/` is used when it is at least as new as the source (and always for a
 * module inside `node_modules`, such as idem's own migrations, since Node strips no types there),
 * which keeps start-up fast. Otherwise Node loads the source itself, with its type stripping
 * (https://nodejs.org/api/typescript.html): a data engineer's new pipeline works without a build
 * step, and no TypeScript compiler is loaded (the no-op rerun of a project's pipeline takes about
 * half the CPU time it took through tsx; docs/writing-a-pipeline.md, "idem in a repository of your
 * own"). The module is an ES module, its types erasable (no `enum`, `namespace` or parameter
 * property) and its relative imports spelled with `.ts`: what `tsc --noEmit` checks with the
 * tsconfig.json of that section.
 *
 * @throws UsageError naming the file when this Node cannot strip types (older than
 *   {@link TYPE_STRIPPING_NODE} without `--experimental-strip-types`), when the nearest
 *   package.json says `"type": "commonjs"`, or when the module uses syntax that needs a build.
 *   Any other error the module throws while loading is thrown as it is.
 */
export async function importProjectModule(ownerDir: string, sourceFile: string): Promise<Record<string, unknown>> {
  const relative = path.relative(ownerDir, sourceFile);
  const built = path.join(ownerDir, 'dist', relative.replace(/\.ts$/, '.js'));
  const builtTime = mtimeMs(built);
  if (builtTime >= mtimeMs(sourceFile) || (builtTime >= 0 && sourceFile.split(path.sep).includes('node_modules'))) {
    return import(pathToFileURL(built).href) as Promise<Record<string, unknown>>;
  }
  const manifest = nearestPackageJson(path.dirname(sourceFile));
  if (manifest?.type === 'commonjs') {
    throw new UsageError(
      `${relative}: ${path.relative(ownerDir, manifest.file)} says "type": "commonjs" (what \`npm init -y\` writes), so Node would read this module as CommonJS; ` +
        'pipelines, migrations and their tests are ES modules: set "type": "module" (npm pkg set type=module)',
    );
  }
  try {
    return (await import(pathToFileURL(sourceFile).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new UsageError(
        `${relative}: this Node (${process.versions.node}) loads no TypeScript; idem loads a project's .ts modules with Node's type stripping, ` +
          `on by default in Node ${TYPE_STRIPPING_NODE} and newer (22.6–22.17: NODE_OPTIONS=--experimental-strip-types; --no-experimental-strip-types turns it off)`,
        { cause: error },
      );
    }
    if (code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
      throw new UsageError(
        `${relative}${lineOf(error, sourceFile)}: ${(error as Error).message}; Node runs TypeScript whose types it can erase, which excludes enums, namespaces and parameter properties: ` +
          'write them as plain objects and fields ("erasableSyntaxOnly": true in tsconfig.json flags them)',
        { cause: error },
      );
    }
    if (error instanceof SyntaxError) throw new UsageError(`${relative}${lineOf(error, sourceFile)}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** `, line N` where Node's SyntaxError points into `file` (the first line of its stack is `<file or its URL>:N`). */
function lineOf(error: unknown, file: string): string {
  const stack = (error as Error).stack ?? '';
  const at = [file, pathToFileURL(file).href].find((name) => stack.startsWith(`${name}:`));
  const line = at === undefined ? undefined : /^\d+/.exec(stack.slice(at.length + 1))?.[0];
  return line === undefined ? '' : `, line ${line}`;
}

function mtimeMs(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** The package.json Node consults for a module in `dir` (the nearest one above it), with its `type`. */
function nearestPackageJson(dir: string): { file: string; type: unknown } | undefined {
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        return { file, type: (JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown }).type };
      } catch {
        return undefined;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
