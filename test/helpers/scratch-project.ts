import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { moduleRewritten, PROJECT_DIR } from './run-cli.ts';

/** A throwaway project directory (under `var/`, so `idem` and `zod` resolve) with a data folder; idem's own migrations come from the package. */
export interface ScratchProject {
  readonly dir: string;
  readonly dataDir: string;
  writePipeline(name: string, source: string): void;
  writeMigration(name: string, source: string): void;
  remove(): void;
}

export function createScratchProject(label: string): ScratchProject {
  mkdirSync(path.join(PROJECT_DIR, 'var'), { recursive: true });
  const dir = mkdtempSync(path.join(PROJECT_DIR, 'var', `${label}-`));
  const dataDir = path.join(dir, 'data');
  for (const sub of ['migrations', 'pipelines', 'data']) mkdirSync(path.join(dir, sub));
  return {
    dir,
    dataDir,
    writePipeline: (name, source) => writeModule(dir, path.join(dir, 'pipelines', `${name}.ts`), source),
    writeMigration: (name, source) => writeModule(dir, path.join(dir, 'migrations', `${name}.ts`), source),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Writes one of the project's modules; rewriting one sends the project's later commands to child processes (see `moduleRewritten`). */
function writeModule(projectDir: string, file: string, source: string): void {
  if (existsSync(file)) moduleRewritten(projectDir);
  writeFileSync(file, source);
}
