import { createServer as createHttpServer, type Server } from 'node:http';
import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { editedFixture } from '../helpers/fixtures.ts';
import { openFaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, type CliResult } from '../helpers/run-cli.ts';
import { closedPort } from '../helpers/closed-port.ts';

// Issue 14: no secret leaks. Canary credentials in DATABASE_URL, in the destination's URL and
// header, and in the heartbeat URL; a matrix of failures; then every byte of output and every
// row of job_runs, post_ledger and quarantine is searched for them.
const CANARIES = { db: 'CanaryDbPw4821', destination: 'CanaryDestPw7310', header: 'CanaryHeader5529', heartbeat: 'CanaryBeatPw6647' };

/**
 * Query parameters that carry credentials under names no fixed list foresaw (issue 28 §8), each
 * with a canary value, on the destination's base URL.
 */
const QUERY_CANARIES = Object.fromEntries(
  ['private_token', 'X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token', 'subscription-key', 'X-Api-Key', 'access_key', 'auth_token', 'refresh_token', 'id_token', 'jwt', 'passwd', 'sessionid', 'hapikey'].map(
    (name, i) => [name, `CanaryQuery${1000 + i}`],
  ),
);

type Mode = '500' | '401' | 'invalid-json';

/** A loopback destination that fails every POST the way `mode` says. */
async function startFailingDestination(): Promise<{ server: Server; port: number; setMode: (mode: Mode) => void }> {
  let mode: Mode = '500';
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (mode === 'invalid-json') {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{"id": inv_');
      } else {
        res.writeHead(Number(mode), { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: mode === '401' ? 'unauthorized' : 'internal' }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, setMode: (m) => (mode = m) };
}


/** DATABASE_URL with the canary as its password (PostgreSQL here trusts loopback; MariaDB's root has no password, so its URL stays as is). */
function withDbCanary(url: string): string {
  return url.startsWith('postgres://') ? url.replace(/^postgres:\/\/([^:@/]+)@/, `postgres://$1:${CANARIES.db}@`) : url;
}

describeEachDialect('no canary secret in any output or table', (dialect) => {
  it('a matrix of failures leaks no canary', { timeout: 180_000 }, async () => {
    const world = await openFaultWorld(dialect, 'canary');
    const destination = await startFailingDestination();
    const outputs: CliResult[] = [];
    try {
      const beatPort = await closedPort();
      const env = {
        DATABASE_URL: withDbCanary(world.testDb.url),
        IDEM_LOCK_LEASE_MS: '1000',
        IDEM_DESTINATIONS: JSON.stringify({
          'sandbox-accounting': {
            url: `http://etl:${CANARIES.destination}@127.0.0.1:${destination.port}/?${new URLSearchParams(QUERY_CANARIES)}`,
            headers: { authorization: `Bearer ${CANARIES.header}` },
            http: { retry: { maxAttempts: 2, minDelayMs: 10, maxDelayMs: 20 } },
          },
        }),
        IDEM_HEARTBEATS: JSON.stringify({ [pipeline.name]: `http://hb:${CANARIES.heartbeat}@127.0.0.1:${beatPort}/ping/abc` }),
      };
      const run = async (date: string, extra: Record<string, string> = {}, ...flags: string[]) => {
        const result = await runCli(['run', pipeline.name, '--date', date, ...flags], { ...env, ...extra, LOG_LEVEL: 'debug' });
        outputs.push(result);
        return result;
      };

      destination.setMode('500');
      expect((await run('2010-12-01')).code).toBe(75);
      destination.setMode('401');
      expect((await run('2010-12-02')).code).toBe(3);
      destination.setMode('invalid-json');
      expect((await run('2010-12-03')).code).toBe(3);
      const broken = editedFixture('2010-12-05', (line, n) => (n === 5 ? line.replace(/,\d+,2010-12-05/, ',x,2010-12-05') : line));
      expect((await run('2010-12-05', { IDEM_SOURCE_DIR: broken })).code).toBe(1);
      for (const command of [['status'], ['review', pipeline.name], ['quarantine', pipeline.name], ['status', '--json'], ['quarantine', pipeline.name, '--json']]) {
        const result = await runCli(command, env);
        expect(result.code, result.stderr).toBe(0);
        outputs.push(result);
      }

      const dbPort = await closedPort();
      if (dialect === 'postgres' || dialect === 'mysql') {
        const down = await runCli(['run', pipeline.name, '--date', '2010-12-06'], { ...env, DATABASE_URL: `${dialect}://etl:${CANARIES.db}@127.0.0.1:${dbPort}/test` });
        expect(down.code).toBe(75);
        outputs.push(down);
      }
      const typo = await runCli(['status'], { ...env, DATABASE_URL: `postgress://etl:${CANARIES.db}@127.0.0.1:${dbPort}/test` });
      expect(typo.code).toBe(2);
      outputs.push(typo);

      const tables = await Promise.all(['job_runs', 'post_ledger', 'quarantine'].map(async (table) => JSON.stringify(await world.db.knex(table).select('*'))));
      // The invalid-JSON failure names the request, without the URL's password.
      expect(/POST http:\/\/(etl:)?\*\*\*@127\.0\.0\.1:\d+\/invoices\?private_token=\*\*\*&X-Amz-Signature=\*\*\*&.*: the response is not valid JSON/.test(tables[1]!)).toBe(true);
      const everything = [...outputs.flatMap((o) => [o.stdout, o.stderr]), ...tables].join('\n');
      for (const canary of [...Object.values(CANARIES), ...Object.values(QUERY_CANARIES)]) expect(everything.includes(canary), `${canary} leaked`).toBe(false);
    } finally {
      await new Promise<void>((resolve) => destination.server.close(() => resolve()));
      await world.close();
    }
  });
});
