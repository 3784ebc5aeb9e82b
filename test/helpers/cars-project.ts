import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_DIR } from './run-cli.ts';

/** The migration of the cars pipelines' tables (stg_cars, cars with an integer hp). */
export const CARS_MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ staging: 'stg_cars', target: 'cars', columns: { hp: column.integer() } });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables({ staging: 'stg_cars', target: 'cars' });
}
`;

/** A project of its own holding a cars pipeline (a json-server-like cars API as its destination). */
export interface CarsProject {
  readonly dir: string;
  /** data/cars.csv: three cars. */
  readonly file: string;
  /** The environment of an `idem` child in it: PATH, HOME and IDEM_PROJECT_DIR. */
  readonly env: Record<string, string | undefined>;
  remove(): void;
}

/**
 * A temp project outside this checkout (idem, zod and msw linked into its node_modules) with
 * `pipeline` as pipelines/cars.ts, {@link CARS_MIGRATION}, a three-car data/cars.csv and, when
 * given, `standIns` as stand-ins/cars.ts.
 */
export function createCarsProject(label: string, pipeline: string, standIns?: string): CarsProject {
  const dir = mkdtempSync(path.join(tmpdir(), `idem-${label}-`));
  for (const sub of ['pipelines', 'migrations', 'data', 'node_modules', 'stand-ins']) mkdirSync(path.join(dir, sub));
  for (const dependency of ['zod', 'msw']) symlinkSync(path.join(PROJECT_DIR, 'node_modules', dependency), path.join(dir, 'node_modules', dependency), 'dir');
  symlinkSync(PROJECT_DIR, path.join(dir, 'node_modules', 'idem'), 'dir');
  writeFileSync(path.join(dir, 'pipelines', 'cars.ts'), pipeline);
  writeFileSync(path.join(dir, 'migrations', '20270101000000_create_cars.ts'), CARS_MIGRATION);
  if (standIns !== undefined) writeFileSync(path.join(dir, 'stand-ins', 'cars.ts'), standIns);
  const file = path.join(dir, 'data', 'cars.csv');
  writeFileSync(file, 'name,hp\nchevrolet chevelle malibu,130\nbuick skylark 320,165\nplymouth satellite,150\n');
  return { dir, file, env: { PATH: process.env.PATH, HOME: process.env.HOME, IDEM_PROJECT_DIR: dir }, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
