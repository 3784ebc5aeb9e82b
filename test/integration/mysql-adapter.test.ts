import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { loadDataLine, mysqlBulkLoad } from '../../src/dialect/mysql/mysql-bulk-load.ts';
import { assertSupportedMysqlServer, MYSQL_MINIMUM_RELEASES, parseMysqlServerVersion } from '../../src/dialect/mysql/mysql-server-version.ts';
import { mysqlConnectionOptions } from '../../src/dialect/mysql/mysql-types.ts';
import { column } from '../../src/column/column-type.ts';
import { createTestDatabase, DIALECTS, MYSQL_ADMIN_URL, type TestDatabase } from '../helpers/dialects.ts';
import { openMigratedDatabase, openTestDatabase } from '../helpers/test-db.ts';

describe('MySQL adapter: LOAD DATA lines and connection options', () => {
  it('writes NULL as \\N and escapes backslash, tab, newline, CR and NUL, so NULL and "" stay apart', () => {
    expect(loadDataLine([1, null, '', 'a\\b', 'x\ty', 'l1\nl2\r', 'n\0n', '\\N', 'é €'])).toBe(
      '1\t\\N\t\t' + 'a\\\\b\t' + 'x\\ty\t' + 'l1\\nl2\\r\t' + 'n\\0n\t' + '\\\\N\t' + 'é €\n',
    );
  });

  it('turns mariadb:// into a URL mysql2 reads, with the type settings on', () => {
    expect(mysqlConnectionOptions('mariadb://etl:s%40cret@db:3307/warehouse')).toMatchObject({
      uri: 'mysql://etl:s%40cret@db:3307/warehouse',
      supportBigNumbers: true,
      dateStrings: ['DATE'],
      timezone: 'Z',
      charset: 'utf8mb4',
      multipleStatements: false,
    });
    expect(mysqlConnectionOptions('mysql://root@127.0.0.1/x').uri).toBe('mysql://root@127.0.0.1/x');
  });
});

describe.skipIf(!DIALECTS.includes('mysql'))('mysql: the server version check when the pool connects', () => {
  it('lets the local server through: it is at least the minimum of its flavour', async () => {
    const db = await openTestDatabase(MYSQL_ADMIN_URL);
    try {
      // The pool's first connection checks the version before this query runs; a refusal rejects it.
      const [[row]] = (await db.knex.raw('select version() as version')) as [[{ version: string }]];
      const version = parseMysqlServerVersion(row.version)!;
      const ordinal = ([major, minor, patch]: readonly number[]) => major! * 1e6 + minor! * 1e3 + patch!;
      expect(ordinal(version.release)).toBeGreaterThanOrEqual(ordinal(MYSQL_MINIMUM_RELEASES[version.flavour].release));
      expect(assertSupportedMysqlServer(row.version)).toBe(version.flavour);
    } finally {
      await db.close();
    }
  });
});

const TEXT = column.text({ nullable: true });
const SHORT = column.text({ maxLength: 5, nullable: true });
const COLUMNS = ['id', 'body', 'short'];
// Everything LOAD DATA could misread: NULL vs '', escapes, the literal text \N, trailing spaces, ctrl-Z, long text.
const ROWS: unknown[][] = [
  [1, null, null],
  [2, '', ''],
  [3, 'back\\slash \\N \\t', 'a\\b'],
  [4, 'tab\there\nnew line\r\nCRLF', 'x\ty'],
  [5, 'trailing  ', 'sp  '],
  [6, 'ctrl-Z \x1a and NUL \0 end', 'é€'],
  [7, '"quoted", \'single\'', '"'],
  ...Array.from({ length: 150 }, (_, i) => [8 + i, `row ${i} ${'x'.repeat(i)}`, String(i)]),
];

async function* batchesOf(rows: unknown[][], size: number, failAfter?: number): AsyncGenerator<unknown[][]> {
  for (let i = 0; i < rows.length; i += size) {
    if (failAfter !== undefined && i >= failAfter) throw new Error('the source broke');
    yield rows.slice(i, i + size);
  }
}

describe.skipIf(!DIALECTS.includes('mysql'))('mysql: the bulk load and the superseded-row delete', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeEach(async (context) => {
    testDb = await createTestDatabase('mysql', context.task.name);
    db = await openMigratedDatabase(testDb.url);
    await db.knex.schema.createTable('load_target', (t) => {
      t.bigInteger('id').primary();
      db.adapter.addColumn(t, 'body', TEXT);
      db.adapter.addColumn(t, 'short', SHORT);
    });
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  const stored = async () => (await db.knex('load_target').orderBy('id')).map((r: { id: number; body: unknown; short: unknown }) => [Number(r.id), r.body, r.short]);

  it.each([
    ['LOAD DATA LOCAL INFILE', { localInfile: true, maxAllowedPacket: 16 << 20 }],
    ['multi-row INSERTs of at most 1 KiB', { localInfile: false, maxAllowedPacket: 1000 }],
  ])('%s loads every value exactly', async (_path, settings) => {
    expect(await mysqlBulkLoad(db.knex, 'load_target', COLUMNS, batchesOf(ROWS, 7), () => settings)).toBe(ROWS.length);
    expect(await stored()).toEqual(ROWS);
  });

  it('the adapter takes the LOAD DATA path here (local_infile is on) and loads the same', async () => {
    expect((await db.knex.raw('select @@local_infile as on_'))[0][0].on_).toBe(1);
    expect(await db.adapter.bulkLoad(db.knex, 'load_target', COLUMNS, batchesOf(ROWS, 50), [column.integer(), TEXT, SHORT])).toBe(ROWS.length);
    expect(await stored()).toEqual(ROWS);
  });

  it.each([
    ['LOAD DATA LOCAL INFILE', { localInfile: true, maxAllowedPacket: 16 << 20 }],
    ['multi-row INSERTs', { localInfile: false, maxAllowedPacket: 1000 }],
  ])('%s is all or nothing: a value too long fails the load (never truncated), a broken source leaves no rows', async (_path, settings) => {
    const tooLong = [...ROWS.slice(0, 20), [999, 'fine', 'longer than 5']];
    await expect(mysqlBulkLoad(db.knex, 'load_target', COLUMNS, batchesOf(tooLong, 7), () => settings)).rejects.toThrow(/short|too long|truncated/i);
    expect(await stored()).toEqual([]);
    await expect(mysqlBulkLoad(db.knex, 'load_target', COLUMNS, batchesOf(ROWS, 7, 70), () => settings)).rejects.toThrow('the source broke');
    expect(await stored()).toEqual([]);
  });

  it('inside a caller\'s transaction (--dry-run) it loads under a savepoint, so the caller\'s rollback leaves nothing', async () => {
    const specs = [column.integer(), TEXT, SHORT];
    await expect(
      db.knex.transaction(async (trx) => {
        expect(await db.adapter.bulkLoad(trx, 'load_target', COLUMNS, batchesOf(ROWS, 50), specs)).toBe(ROWS.length);
        expect(Number((await trx('load_target').count({ n: '*' }))[0]!.n)).toBe(ROWS.length);
        // A failed load inside it rolls back to its savepoint only.
        await expect(db.adapter.bulkLoad(trx, 'load_target', COLUMNS, batchesOf([[999, 'x', 'too long!']], 1), specs)).rejects.toThrow();
        expect(Number((await trx('load_target').count({ n: '*' }))[0]!.n)).toBe(ROWS.length);
        throw new Error('dry run');
      }),
    ).rejects.toThrow('dry run');
    expect(await stored()).toEqual([]);
  });

  it('deletes each superseded staging row once, however many later rows supersede it', async () => {
    await db.knex.schema.createTable('stg_dups', (t) => {
      t.bigInteger('seq').primary();
      db.adapter.addColumn(t, 'source_system', column.text({ maxLength: 200 }));
      db.adapter.addColumn(t, 'source_reference', column.text({ maxLength: 200 }));
    });
    const refs = ['A', 'a', 'A', 'A ', 'A', 'B'];
    await db.knex('stg_dups').insert(refs.map((ref, i) => ({ seq: i + 1, source_system: 's', source_reference: ref })));
    expect(await db.adapter.deleteSupersededStagingRows(db.knex, 'stg_dups')).toBe(2);
    expect((await db.knex('stg_dups').orderBy('seq')).map((r: { seq: number; source_reference: string }) => [Number(r.seq), r.source_reference])).toEqual([
      [2, 'a'],
      [4, 'A '],
      [5, 'A'],
      [6, 'B'],
    ]);
  });
});
