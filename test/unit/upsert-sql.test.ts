import { describe, expect, it } from 'vitest';
import { insertMissingSql } from '../../src/dialect/insert-missing-sql.ts';
import { mysqlUpdateChangedSql } from '../../src/dialect/mysql/mysql-upsert.ts';
import { postgresUpdateChangedSql } from '../../src/dialect/postgres/postgres-upsert.ts';
import { quoteAnsiIdentifier } from '../../src/dialect/quote-ansi-identifier.ts';
import { sqliteUpdateChangedSql } from '../../src/dialect/sqlite/sqlite-upsert.ts';

const plan = { staging: 'stg_x', target: 'x', columns: ['a', 'b'], runKey: '2010-12-01', now: '2026-01-01T00:00:00.000Z' };

describe('upsert SQL', () => {
  it('PostgreSQL compares every business column and the row hash with IS DISTINCT FROM', () => {
    expect(postgresUpdateChangedSql(plan)).toContain('and (t."a", t."b", t."row_hash") is distinct from (s."a", s."b", s."row_hash")');
  });

  it('SQLite compares null-safely with IS NOT', () => {
    expect(sqliteUpdateChangedSql(plan)).toContain('and (t."a" is not s."a" or t."b" is not s."b" or t."row_hash" is not s."row_hash")');
  });

  it('MySQL/MariaDB joins staging and compares null-safely with <=>', () => {
    expect(mysqlUpdateChangedSql(plan)).toBe(
      'update `x` t join `stg_x` s on t.`source_system` = s.`source_system` and t.`source_reference` = s.`source_reference` ' +
        'set t.`a` = s.`a`, t.`b` = s.`b`, t.`row_hash` = s.`row_hash`, t.`last_changed_run_key` = ?, t.`updated_at` = ? ' +
        'where not (t.`a` <=> s.`a` and t.`b` <=> s.`b` and t.`row_hash` <=> s.`row_hash`)',
    );
  });

  it('inserts only keys the target lacks', () => {
    expect(insertMissingSql(plan, quoteAnsiIdentifier)).toBe(
      'insert into "x" ("source_system", "source_reference", "a", "b", "row_hash", "first_run_key", "last_changed_run_key", "created_at", "updated_at") ' +
        'select s."source_system", s."source_reference", s."a", s."b", s."row_hash", ?, ?, ?, ? from "stg_x" s ' +
        'where not exists (select 1 from "x" t where t."source_system" = s."source_system" and t."source_reference" = s."source_reference")',
    );
  });
});
