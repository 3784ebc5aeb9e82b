import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/dialects.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';

// A destination's request that reads a name that is no column (test/fixtures/typed-values-project):
// tsc refuses it (the fixture's `@ts-expect-error`, compiled by `tsc -p test/tsconfig.json`),
// `idem check` names it, and a run stops on it before sending anything. Neither the check nor the
// values' guard touches SQL, so one dialect (SQLite) is enough for the run.
const PROJECT = 'test/fixtures/typed-values-project';
const TYPO = 'row.values.amout: the pipeline has no column "amout" (its columns: name, city, qty, amount)';

describe('a typo in a destination request', () => {
  let server: Server;
  let requests = 0;
  let env: Record<string, string>;
  let testDb: TestDatabase;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"r1"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    testDb = await createTestDatabase('sqlite', 'typed values');
    env = { IDEM_PROJECT_DIR: PROJECT, DATABASE_URL: testDb.url, IDEM_DESTINATIONS: JSON.stringify({ 'people-api': { url: `http://127.0.0.1:${port}` } }) };
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await testDb?.drop();
  });

  it('idem check builds each request for a sample row: names a name that is no column and a body field left undefined', async () => {
    const result = await runCli(['check', '--no-database'], env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout.split('\n')).toEqual([
      `pipelines/body-typo.ts: destination people-api: request() for a sample row: ${TYPO}`,
      'pipelines/body-unset.ts: destination people-api: request() for a sample row leaves body.id undefined, which JSON.stringify leaves out of the request; fix: set it from a column of the pipeline (name, city, qty, amount) or leave the field out',
      '2 problems in 2 of 3 pipelines',
      '',
    ]);
    expect(requests).toBe(0);
  });

  it('a run stops at the first request with exit 2 naming the name and sends nothing; the same pipeline without the typo sends each record', async () => {
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    const typo = await runCli(['run', 'body-typo', '--date', '2026-01-05'], env);
    expect(typo.code, typo.stderr).toBe(2);
    expect(summaryOf(typo).err).toMatchObject({ type: 'PipelineError', message: TYPO });
    expect(requests).toBe(0);
    const right = await runCli(['run', 'body-right', '--date', '2026-01-05'], env);
    expect(right.code, right.stderr).toBe(0);
    expect(requests).toBe(2);
  });
});
