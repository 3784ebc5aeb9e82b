import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_DIR } from './run-cli.ts';

/** idem's own migrations, which every project applies. */
const FRAMEWORK_MIGRATIONS = [
  '20261130000000_create_idem_tables',
  '20261130000200_create_post_ledger',
  '20261130000400_add_post_claims',
  '20261201000100_add_claim_fencing',
  '20261201000300_create_source_marks',
];

/** A throwaway project directory (under `var/`, so `idem` and `zod` resolve) with idem's migrations and a data folder. */
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
  for (const name of FRAMEWORK_MIGRATIONS) {
    writeFileSync(path.join(dir, 'migrations', `${name}.ts`), `export { up, down } from ${JSON.stringify(path.join(PROJECT_DIR, 'migrations', `${name}.ts`))};\n`);
  }
  return {
    dir,
    dataDir,
    writePipeline: (name, source) => writeFileSync(path.join(dir, 'pipelines', `${name}.ts`), source),
    writeMigration: (name, source) => writeFileSync(path.join(dir, 'migrations', `${name}.ts`), source),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
