import { describe, expect, it } from 'vitest';
import { DIALECTS, MYSQL_ADMIN_URL, PG_ADMIN_URL } from '../helpers/dialects.ts';
import { runCli } from '../helpers/run-cli.ts';

// Issue 28 §8: a DATABASE_URL the database refuses (a login, a database that does not exist, TLS
// the server has not) or that is no URL (its port) is a setting a rerun cannot fix: exit 2 with one
// line that names DATABASE_URL, its password hidden, no driver stack, and none of the drivers' own
// warnings on stderr. A server that is down stays exit 75.

const CANARY = 'CanaryDbPw3391';

function withUserAndDatabase(adminUrl: string, user: string, database: string, query = '', password = CANARY): string {
  const url = new URL(adminUrl);
  url.username = user;
  url.password = password;
  url.pathname = `/${database}`;
  url.search = query;
  return url.href;
}

const CASES = [
  ...(DIALECTS.includes('postgres')
    ? [
        { name: 'PostgreSQL: a role that does not exist', url: withUserAndDatabase(PG_ADMIN_URL, 'nobody', 'test'), says: 'role "nobody" does not exist' },
        { name: 'PostgreSQL: a database that does not exist', url: withUserAndDatabase(PG_ADMIN_URL, 'postgres', 'idem_no_such_db'), says: 'database "idem_no_such_db" does not exist' },
        { name: 'PostgreSQL: sslmode=require against a server without TLS', url: withUserAndDatabase(PG_ADMIN_URL, 'postgres', 'test', '?sslmode=require'), says: 'does not support SSL connections' },
      ]
    : []),
  ...(DIALECTS.includes('mysql')
    ? [
        { name: 'MariaDB: a login refused', url: withUserAndDatabase(MYSQL_ADMIN_URL, 'nobody', 'test'), says: "Access denied for user 'nobody'" },
        { name: 'MariaDB: a database that does not exist', url: withUserAndDatabase(MYSQL_ADMIN_URL, 'root', 'idem_no_such_db', '', ''), says: "Unknown database 'idem_no_such_db'" },
      ]
    : []),
  { name: 'a port that is no port', url: `postgres://etl:${CANARY}@127.0.0.1:99999/test`, says: 'DATABASE_URL is not a valid URL: check its port' },
];

describe('a DATABASE_URL the database refuses', () => {
  it.each(CASES)('$name: exit 2, one line naming DATABASE_URL, for every command', async ({ url, says }) => {
    for (const command of [['status'], ['migrate'], ['run', 'online-retail-invoices', '--date', '2010-12-01']]) {
      const result = await runCli(command, { DATABASE_URL: url });
      expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(2);
      const lines = result.stderr.trim().split('\n').filter((line) => !line.startsWith('{'));
      expect(lines, command.join(' ')).toHaveLength(1);
      expect(lines[0]).toMatch(/^idem: DATABASE_URL /);
      expect(lines[0]).toContain(says);
      expect(result.stdout + result.stderr).not.toContain(CANARY);
      expect(result.stderr).not.toMatch(/SECURITY WARNING|^\s+at /m);
    }
  });

  it('a server that is down stays exit 75', async () => {
    const result = await runCli(['status'], { DATABASE_URL: `postgres://etl:${CANARY}@127.0.0.1:1/test` });
    expect(result.code).toBe(75);
    expect(result.stderr).toContain('the database at 127.0.0.1:1 is unavailable (connection refused); retry later');
    expect(result.stderr).not.toContain(CANARY);
  });
});
