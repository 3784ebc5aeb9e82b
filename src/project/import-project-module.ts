import { statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Imports one of the project's own TypeScript modules (a pipeline or a migration). The build in
 * `dist/` is used when it is at least as new as the source, which keeps start-up fast; a module
 * edited since the last `npm run build` is loaded through tsx instead, so a data engineer's new
 * pipeline works without a build step.
 */
export async function importProjectModule(projectDir: string, sourceFile: string): Promise<Record<string, unknown>> {
  const relative = path.relative(projectDir, sourceFile);
  const built = path.join(projectDir, 'dist', relative.replace(/\.ts$/, '.js'));
  if (mtimeMs(built) >= mtimeMs(sourceFile)) return import(pathToFileURL(built).href) as Promise<Record<string, unknown>>;
  const { tsImport } = await import('tsx/esm/api');
  return tsImport(pathToFileURL(sourceFile).href, import.meta.url) as Promise<Record<string, unknown>>;
}

function mtimeMs(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}
