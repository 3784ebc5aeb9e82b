import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MYSQL_LOCK_NAME_MAX, mysqlLockName } from '../../src/dialect/mysql/mysql-lock-name.ts';

describe('MySQL app lock names', () => {
  it('name the database, since GET_LOCK names are server-wide', () => {
    expect(mysqlLockName('etl', 'idem:online-retail-invoices')).toBe('idem:online-retail-invoices@etl');
    expect(mysqlLockName('etl_staging', 'idem:online-retail-invoices')).not.toBe(mysqlLockName('etl', 'idem:online-retail-invoices'));
  });

  it('keep a name of exactly 64 bytes, and hash a longer one to idem: + SHA-1 hex of name@database', () => {
    const name64 = `idem:${'p'.repeat(64 - 'idem:'.length - '@db'.length)}`;
    expect(mysqlLockName('db', name64)).toBe(`${name64}@db`);
    expect(`${name64}@db`).toHaveLength(MYSQL_LOCK_NAME_MAX);

    const long = `idem:${'a-very-long-pipeline-name-'.repeat(3)}`;
    const hashed = mysqlLockName('warehouse', long);
    expect(hashed).toBe(`idem:${createHash('sha1').update(`${long}@warehouse`).digest('hex')}`);
    expect(hashed).toMatch(/^idem:[0-9a-f]{40}$/);
    expect(hashed.length).toBeLessThanOrEqual(MYSQL_LOCK_NAME_MAX);
    // The database still tells two long names apart.
    expect(mysqlLockName('warehouse_test', long)).not.toBe(hashed);
  });

  it('count bytes, not characters: 40 three-byte characters are hashed', () => {
    expect(mysqlLockName('db', `idem:${'€'.repeat(20)}`)).toMatch(/^idem:[0-9a-f]{40}$/);
  });
});
