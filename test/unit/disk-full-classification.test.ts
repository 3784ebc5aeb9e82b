import { describe, expect, it } from 'vitest';
import { MssqlDialect } from '../../src/dialect/mssql/mssql-dialect.ts';
import { MysqlDialect } from '../../src/dialect/mysql/mysql-dialect.ts';

// The dialects' answers to a full disk that no test here can bring about for real: SQL Server
// (no server here) and MySQL/MariaDB's other disk-full errors (a full disk under InnoDB ends a
// shared server; see test/integration/full-disk.test.ts, which runs SQLite, PostgreSQL and
// MariaDB's 1114 for real). The error objects have the drivers' shapes (tedious through knex:
// `number`; mysql2: `errno`, `code`, `sqlState`), with knex's statement before the server's words.
const knexMessage = (words: string) => `insert into "stg_x" ("a", "b") values (?, ?) - ${words}`;

describe('diskFull: which errors mean a full disk', () => {
  it('SQL Server: 1105 (a filegroup full) and 9002 (the log full), leading with the cause, without the statement', () => {
    const mssql = new MssqlDialect('mssql://sa:secret@127.0.0.1:1433/db');
    const words = "Could not allocate space for object 'dbo.stg_x' in database 'db' because the 'PRIMARY' filegroup is full.";
    expect(mssql.diskFull(Object.assign(new Error(knexMessage(words)), { number: 1105 }))).toBe(`the database's data or log file is full (SQL Server error 1105: ${words})`);
    expect(mssql.diskFull(Object.assign(new Error(knexMessage('The transaction log for database is full')), { originalError: { info: { number: 9002 } } }))).toMatch(/^the database's data or log file is full \(SQL Server error 9002: The transaction log/);
    expect(mssql.diskFull(Object.assign(new Error('deadlock'), { number: 1205 }))).toBeUndefined();
  });

  it("MySQL/MariaDB: ER_DISK_FULL (1021) and OS error 28 inside the server's words; a Node ENOSPC is not the server's", () => {
    const mysql = new MysqlDialect('mysql://root@127.0.0.1:3306/db');
    const server = (errno: number, code: string, words: string) => Object.assign(new Error(knexMessage(words)), { errno, code, sqlState: 'HY000' });
    expect(mysql.diskFull(server(1021, 'ER_DISK_FULL', 'Disk full (/tmp/#sql_1.MAI); waiting for someone to free some space...'))).toBe(
      "the database server's disk or a table's space is full (MySQL/MariaDB error 1021 ER_DISK_FULL: Disk full (/tmp/#sql_1.MAI); waiting for someone to free some space...)",
    );
    expect(mysql.diskFull(server(1030, 'ER_GET_ERRNO', "Got error 28 'No space left on device' from storage engine InnoDB"))).toMatch(/^the database server's disk or a table's space is full \(MySQL\/MariaDB error 1030 ER_GET_ERRNO: Got error 28/);
    expect(mysql.diskFull(server(1213, 'ER_LOCK_DEADLOCK', 'Deadlock found when trying to get lock'))).toBeUndefined();
    expect(mysql.diskFull(Object.assign(new Error('ENOSPC: no space left on device, write'), { errno: -28, code: 'ENOSPC' }))).toBeUndefined();
  });
});
