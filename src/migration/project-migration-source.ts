import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { idemPackageDir } from '../project/idem-package-dir.ts';
import { importProjectModule } from '../project/import-project-module.ts';
import type { MigrationContext } from './migration-context.ts';

type MigrationFn = (knex: Knex, idem: MigrationContext) => Promise<void>;

/** Where idem's own migrations live inside its package: `job_runs`, the post ledger, `source_marks`, … */
export const FRAMEWORK_MIGRATIONS_DIR = path.join('migrations', 'framework');

/** One migration file and the package or project it belongs to (whose `dist/` may hold its build). */
interface MigrationFile {
  readonly ownerDir: string;
  readonly file: string;
}

/**
 * A knex migration source over idem's own migrations (`migrations/framework/*.ts` of the idem
 * package, wherever it is installed) and the project's (`<projectDir>/migrations/*.ts`), in one
 * order by name. So a project of one's own, with idem installed as a package and
 * `IDEM_PROJECT_DIR` pointing at it, gets `job_runs` and the post ledger from the package and
 * holds only its pipelines' migrations. A project file named like a framework migration is
 * ignored (older projects re-exported them). Names carry no extension, so a migration applied
 * from the TypeScript source and one applied from the build are the same migration. Each
 * `up`/`down` gets the {@link MigrationContext} as its second argument.
 */
export class ProjectMigrationSource implements Knex.MigrationSource<string> {
  readonly #projectDir: string;
  readonly #packageDir: string;
  readonly #context: (knex: Knex) => MigrationContext | Promise<MigrationContext>;
  #files: Map<string, MigrationFile> | undefined;

  /**
   * `context` builds the helpers on the knex (a transaction) each migration runs on.
   * @param packageDir idem's package directory. @defaultValue {@link idemPackageDir}()
   */
  constructor(projectDir: string, context: (knex: Knex) => MigrationContext | Promise<MigrationContext>, packageDir: string = idemPackageDir()) {
    this.#projectDir = projectDir;
    this.#packageDir = packageDir;
    this.#context = context;
  }

  #list(): Map<string, MigrationFile> {
    if (this.#files) return this.#files;
    const files = new Map<string, MigrationFile>();
    const add = (ownerDir: string, dir: string): void => {
      if (!existsSync(dir)) return;
      for (const file of readdirSync(dir)) {
        if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
        const name = file.slice(0, -'.ts'.length);
        if (!files.has(name)) files.set(name, { ownerDir, file: path.join(dir, file) });
      }
    };
    add(this.#packageDir, path.join(this.#packageDir, FRAMEWORK_MIGRATIONS_DIR));
    add(this.#projectDir, path.join(this.#projectDir, 'migrations'));
    this.#files = files;
    return files;
  }

  async getMigrations(): Promise<string[]> {
    return [...this.#list().keys()].sort();
  }

  getMigrationName(name: string): string {
    return name;
  }

  async getMigration(name: string): Promise<Knex.Migration> {
    const found = this.#list().get(name);
    if (!found) throw new TypeError(`no migration ${name} in ${FRAMEWORK_MIGRATIONS_DIR} of idem or migrations/ of ${this.#projectDir}`);
    const module = await importProjectModule(found.ownerDir, found.file);
    const up = module.up as MigrationFn | undefined;
    const down = module.down as MigrationFn | undefined;
    const shown = path.relative(found.ownerDir, found.file);
    if (typeof up !== 'function') throw new TypeError(`${shown} must export an \`up(knex, idem)\` function`);
    return {
      up: async (knex: Knex) => up(knex, await this.#context(knex)),
      down: down ? async (knex: Knex) => down(knex, await this.#context(knex)) : undefined,
    };
  }
}
