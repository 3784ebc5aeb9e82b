import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/usage-error.ts';
import { assertSupportedMysqlServer, parseMysqlServerVersion } from '../../src/dialect/mysql/mysql-server-version.ts';

describe('MySQL/MariaDB server version', () => {
  it.each([
    ['8.0.36', 'mysql', [8, 0, 36]],
    ['8.0.17', 'mysql', [8, 0, 17]],
    ['8.4.3-0ubuntu0.24.04.1', 'mysql', [8, 4, 3]],
    ['10.11.19-MariaDB-0+deb12u1', 'mariadb', [10, 11, 19]],
    ['5.5.5-10.6.21-MariaDB-log', 'mariadb', [10, 6, 21]],
    ['11.4.5-MariaDB', 'mariadb', [11, 4, 5]],
    ['5.7.44', 'mysql', [5, 7, 44]],
    ['5.5.5-log', 'mysql', [5, 5, 5]],
  ])('reads %s as %s %j', (text, flavour, release) => {
    expect(parseMysqlServerVersion(text)).toEqual({ flavour, release, text });
  });

  it('reads nothing from a version without major.minor.patch', () => {
    expect(parseMysqlServerVersion('MariaDB')).toBeUndefined();
    expect(parseMysqlServerVersion('8.0')).toBeUndefined();
  });

  it.each([
    ['8.0.36', 'mysql'],
    ['8.0.17', 'mysql'],
    ['9.1.0', 'mysql'],
    ['10.6.0-MariaDB', 'mariadb'],
    ['10.11.19-MariaDB-0+deb12u1', 'mariadb'],
    ['11.4.5-MariaDB', 'mariadb'],
  ])('accepts %s', (text, flavour) => {
    expect(assertSupportedMysqlServer(text)).toBe(flavour);
  });

  it.each([
    ['10.5.27-MariaDB', 'DATABASE_URL points at MariaDB 10.5.27 ("10.5.27-MariaDB"); idem needs MariaDB 10.6 or newer (for a release series still maintained when idem was written)'],
    ['5.5.5-10.2.44-MariaDB-log', 'DATABASE_URL points at MariaDB 10.2.44 ("5.5.5-10.2.44-MariaDB-log"); idem needs MariaDB 10.6 or newer (for a release series still maintained when idem was written)'],
    ['5.7.44', 'DATABASE_URL points at MySQL 5.7.44 ("5.7.44"); idem needs MySQL 8.0.17 or newer (for the utf8mb4_0900_bin collation)'],
    ['8.0.16', 'DATABASE_URL points at MySQL 8.0.16 ("8.0.16"); idem needs MySQL 8.0.17 or newer (for the utf8mb4_0900_bin collation)'],
    ['unknown', 'DATABASE_URL points at a server whose version idem cannot read (got "unknown"); idem needs MySQL 8.0.17 or MariaDB 10.6 or newer'],
  ])('refuses %s with a usage error naming the version found and the minimum', (text, message) => {
    let thrown: unknown;
    try {
      assertSupportedMysqlServer(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect(thrown).toMatchObject({ message, exitCode: 2 });
  });
});
