import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIdemChild } from '../../src/child-process/start-idem-child.ts';
import { startPipelineTest } from '../../src/testing/index.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

// The source-kind contract (src/source/source-kind.ts), proven from outside: a kind defined here,
// in a pipeline module of a project of its own (an in-memory list of rows), runs through
// `idem check`, a dry run, a run, a rerun, `idem prove` and the test kit, with nothing in src/
// knowing its name. Its capabilities are answered by the kind object alone.
const PIPELINE = `import { column, definePipeline, type SourceDeclaration, type SourceKind } from 'idem';

/** A source of rows held in the module: a list, its quarantine reason naming the item's index. */
interface MemorySource extends SourceDeclaration {
  readonly kind: SourceKind<MemorySource>;
  readonly items: readonly Record<string, unknown>[];
}

// idem prove's update checks ask the kind for a changed copy: this kind's runs read the
// changed list when MEMORY_CARS_CHANGED is set (a module's own kind says how its source changes).
const changedCopy: SourceKind<MemorySource>['changedCopy'] = async () => ({ change: 'buick skylark 320, hp: 165 → 166', env: { MEMORY_CARS_CHANGED: '1' } });

const memoryKind: SourceKind<MemorySource> = {
  ...(process.env.MEMORY_CARS_NO_CHANGED_COPY ? {} : { changedCopy }),
  name: 'memory',
  fieldForm: 'json',
  rereadable: false,
  withDerivedRow: (source, { row }) => Object.freeze({ ...source, row }),
  locate(_source, runKey, { pipelineName }) {
    if (runKey.kind === 'file') throw new TypeError(pipelineName + ' reads a list in memory, not a file');
    return 'memory:' + pipelineName;
  },
  checkLocation: (source) => (source.items.length > 0 ? [] : ['the in-memory list is empty']),
  async *read(source, location, quarantine) {
    for (const [index, item] of source.items.entries()) {
      const parsed = source.row!.safeParse(item);
      if (parsed.success) yield { line: index + 1, value: parsed.data };
      else await quarantine({ source: location, line: index + 1, reason: parsed.error.issues[0]!.message, raw: JSON.stringify(item) });
    }
  },
};

const items = process.env.MEMORY_CARS_EMPTY ? [] : [
  { name: 'chevrolet chevelle malibu', hp: 130 },
  { name: 'buick skylark 320', hp: process.env.MEMORY_CARS_CHANGED ? 166 : 165 },
  { name: 'plymouth satellite', hp: 150 },
];

export const pipeline = definePipeline({
  name: 'memory-cars',
  sourceSystem: 'memory',
  timeZone: 'UTC',
  source: { kind: memoryKind, items, invalidRows: 'fail' },
  key: 'name',
  tables: { staging: 'stg_memory_cars', target: 'memory_cars' },
  columns: { hp: column.integer() },
});
`;

const MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ staging: 'stg_memory_cars', target: 'memory_cars', columns: { hp: column.integer() } });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables({ staging: 'stg_memory_cars', target: 'memory_cars' });
}
`;

const DATE = '2027-01-04';

describe('a source kind of a pipeline module of its own (the SourceKind contract)', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  const idem = (args: string[], extra: Record<string, string> = {}) => runIdemChild(args, { ...env, ...extra }, { cwd: dir });

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'idem-source-kind-'));
    for (const sub of ['pipelines', 'migrations', 'node_modules']) mkdirSync(path.join(dir, sub));
    symlinkSync(path.join(PROJECT_DIR, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'), 'dir');
    symlinkSync(PROJECT_DIR, path.join(dir, 'node_modules', 'idem'), 'dir');
    writeFileSync(path.join(dir, 'pipelines', 'memory-cars.ts'), PIPELINE);
    writeFileSync(path.join(dir, 'migrations', '20270101000000_create_memory_cars.ts'), MIGRATION);
    env = { PATH: process.env.PATH, HOME: process.env.HOME, IDEM_PROJECT_DIR: dir, DATABASE_URL: `sqlite:${path.join(dir, 'idem.sqlite3')}` };
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('idem check asks the kind where its source is', { timeout: 60_000 }, async () => {
    expect((await idem(['migrate'])).code).toBe(0);
    const passed = await idem(['check']);
    expect(passed.code, passed.stdout + passed.stderr).toBe(0);
    const empty = await idem(['check'], { MEMORY_CARS_EMPTY: '1' });
    expect(empty.code).toBe(2);
    expect(empty.stdout + empty.stderr).toContain('the in-memory list is empty');
  });

  it('a dry run plans, a run loads every row, a rerun is a no-op, and a --file run is refused by the kind', { timeout: 60_000 }, async () => {
    const planned = await idem(['run', 'memory-cars', '--date', DATE, '--dry-run']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.summary?.plan).toMatchObject({ target: { insert: { count: 3 } } });

    const run = await idem(['run', 'memory-cars', '--date', DATE]);
    expect([run.code, run.summary?.outcome], run.stderr).toEqual([0, 'completed']);
    expect(run.summary?.counts).toMatchObject({ extract: { source: 'memory:memory-cars', rows: 3, quarantined: 0 }, upsert: { inserted: 3, updated: 0, unchanged: 0 } });
    const again = await idem(['run', 'memory-cars', '--date', DATE]);
    expect([again.code, again.summary?.outcome]).toEqual([0, 'noop']);

    const file = path.join(dir, 'cars.csv');
    writeFileSync(file, 'name,hp\n');
    const byFile = await idem(['run', 'memory-cars', '--file', file]);
    expect(byFile.code).not.toBe(0);
    expect(byFile.summary?.msg ?? byFile.stderr).toContain('memory-cars reads a list in memory, not a file');
  });

  it('idem prove proves it, and the test kit runs it', { timeout: 600_000 }, async () => {
    // The clean runs, the update path, and a kill and an overlap of each: the kind's part of a proof.
    const only = ['--only', 'mid-upsert', '--only', 'two runs at once'];
    const proved = await idem(['prove', 'memory-cars', '--date', DATE, '--seed', '1', ...only]);
    expect(proved.code, proved.stdout + proved.stderr).toBe(0);
    expect(proved.stdout).toMatch(/^clean run +pass +rows 3$/m);
    // The update path, through the kind's changedCopy: one row updated, and so under every kill and the overlap.
    expect(proved.stdout).toMatch(/^update: one value changed, sent once +pass +buick skylark 320, hp: 165 → 166, inserted 0, updated 1, rows changed 1 \(memory buick skylark 320\), again: updated 0$/m);
    expect(proved.stdout).toMatch(/^update: kill at mid-upsert, rerun +pass +rows 3 = 3, attempts 2, staging 0, lock free$/m);
    expect(proved.stdout).toMatch(/^update: two runs at once +pass +exit 0 \+ 75, rows 3 = 3, attempts 1, staging 0, lock free$/m);
    expect(proved.stdout).toMatch(/\npassed: 8 checks\n$/);
    // A kind without the capability: the proof says the update path was not proved, and checks nothing of it.
    const unproved = await idem(['prove', 'memory-cars', '--date', DATE, '--seed', '1', ...only], { MEMORY_CARS_NO_CHANGED_COPY: '1' });
    expect(unproved.code, unproved.stdout + unproved.stderr).toBe(0);
    expect(unproved.stdout).toMatch(/^update: one value changed, sent once +skip +the update path was not proved: the source kind memory offers no changed copy \(SourceKind\.changedCopy\)$/m);
    expect(unproved.stdout).not.toMatch(/^update: kill/m);

    const kit = await startPipelineTest({ pipeline: 'memory-cars', projectDir: dir, databaseUrl: 'sqlite:' });
    try {
      const run = await kit.run(['--date', DATE]);
      expect([run.exitCode, run.outcome], run.child.stderr).toEqual([0, 'completed']);
      expect((await kit.rows()).map((row) => [row.source_reference, Number(row.hp)])).toEqual([
        ['buick skylark 320', 165],
        ['chevrolet chevelle malibu', 130],
        ['plymouth satellite', 150],
      ]);
    } finally {
      await kit.close();
    }
  });
});
