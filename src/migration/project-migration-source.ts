import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { importProjectModule } from '../project/import-project-module.ts';
import type { MigrationContext } from './migration-context.ts';

type MigrationFn = (knex: Knex, idem: MigrationContext) => Promise<void>;

/**
 * A knex migration source over `<projectDir>/migrations/*.ts`. Names carry no extension, so a
 * migration applied from the TypeScript source and one applied from the build are the same
 * migration. Each `up`/`down` gets the {@link MigrationContext} as its second argument.
 */
export class ProjectMigrationSource implements Knex.MigrationSource<string> {
  readonly #dir: string;
  readonly #projectDir: string;
  readonly #context: (knex: Knex) => MigrationContext;

  /** `context` builds the helpers on the knex (a transaction) each migration runs on. */
  constructor(projectDir: string, context: (knex: Knex) => MigrationContext) {
    this.#projectDir = projectDir;
    this.#dir = path.join(projectDir, 'migrations');
    this.#context = context;
  }

  async getMigrations(): Promise<string[]> {
    if (!existsSync(this.#dir)) return [];
    return readdirSync(this.#dir)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
      .map((file) => file.slice(0, -'.ts'.length))
      .sort();
  }

  getMigrationName(name: string): string {
    return name;
  }

  async getMigration(name: string): Promise<Knex.Migration> {
    const module = await importProjectModule(this.#projectDir, path.join(this.#dir, `${name}.ts`));
    const up = module.up as MigrationFn | undefined;
    const down = module.down as MigrationFn | undefined;
    if (typeof up !== 'function') throw new TypeError(`migrations/${name}.ts must export an \`up(knex, idem)\` function`);
    return {
      up: (knex: Knex) => up(knex, this.#context(knex)),
      down: down ? (knex: Knex) => down(knex, this.#context(knex)) : undefined,
    };
  }
}
