import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { createTestDatabase, PG_ADMIN_URL, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';
import { destinationsEnv, startSandbox } from '../helpers/sandbox.ts';

const SECRET = 's3cr3t-pa55';
const TOKEN = 'Bearer tok-9f8e7d6c';

describe('logs and progress', () => {
  let testDb: TestDatabase;
  let sandbox: SandboxApi;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    testDb = await createTestDatabase('postgres', context.task.name);
    sandbox = await startSandbox();
    // Trust authentication accepts any password: the URL carries one that must never be logged.
    const url = testDb.url.replace('postgres://postgres@', `postgres://postgres:${SECRET}@`);
    expect(url).toContain(SECRET);
    expect(PG_ADMIN_URL).not.toContain(SECRET);
    const destinations = JSON.parse(destinationsEnv(sandbox));
    destinations['sandbox-accounting'].headers = { authorization: TOKEN, 'x-api-key': 'key-1234567' };
    env = { DATABASE_URL: url, IDEM_DESTINATIONS: JSON.stringify(destinations) };
  });

  afterEach(async () => {
    await sandbox.close();
    await testDb.drop();
  });

  it('logs JSON lines with pipeline, run key, attempt and stage, a summary, and no secret anywhere', async () => {
    const migrated = await runCli(['migrate'], env);
    sandbox.addFaults([{ kind: 'status', status: 400, count: 1, reference: '536365', body: { error: 'validation_failed' } }]);
    const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, LOG_LEVEL: 'debug' });
    expect(result.code).toBe(3);
    // Logs on stderr, every line of it JSON; stdout carries data only, and a run prints none.
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n').every((line) => line.startsWith('{"'))).toBe(true);
    const stageLines = result.logs.filter((l) => l.attempt !== undefined);
    expect(stageLines.length).toBeGreaterThanOrEqual(5);
    for (const line of stageLines) expect(line).toMatchObject({ pipeline: 'online-retail-invoices', runKey: '2010-12-01', attempt: 1, stage: expect.any(String) });
    expect(result.logs.map((l) => l.stage)).toEqual(expect.arrayContaining(['extract', 'stage', 'upsert', 'post', 'summary']));
    expect(summaryOf(result)).toMatchObject({ outcome: 'needs-review', exitCode: 3, durationMs: expect.any(Number), counts: { upsert: { inserted: 143 } } });
    // The request headers reached the destination, and no log line shows them or the password.
    expect(sandbox.state.records()).toHaveLength(142);
    for (const output of [migrated.stdout, migrated.stderr, result.stdout, result.stderr]) {
      expect(output).not.toContain(SECRET);
      expect(output).not.toContain('tok-9f8e7d6c');
      expect(output).not.toContain('key-1234567');
    }
    expect(migrated.logs[0]!.database).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:5432\//);
    const badUrl = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_DESTINATIONS: `{"sandbox-accounting":{"url":"nope","headers":{"authorization":"${TOKEN}"}}}` });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).not.toContain('tok-9f8e7d6c');
  });

  it('draws progress bars on a terminal, and nothing when stderr is not one', async () => {
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const plain = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-02'], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe('');
    expect(plain.stderr.trimEnd().split('\n').every((line) => line.startsWith('{"'))).toBe(true);
    // util-linux `script` gives the child a pseudo-terminal, as a person's shell would.
    // Spawned asynchronously: the sandbox in this process must keep answering.
    const child = spawn('script', ['-qec', `${process.execPath} bin/idem.js run online-retail-invoices --date 2010-12-01`, '/dev/null'], {
      cwd: PROJECT_DIR,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(status).toBe(0);
    expect(screen).toMatch(/post sandbox-accounting \[[^\]]*\] 100% \| 143 items \| \d+ items\/s/);
  });
});
