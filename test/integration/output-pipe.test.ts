import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { QuarantineWriter } from '../../src/quarantine/quarantine-writer.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';
import { openMigratedDatabase } from '../helpers/test-db.ts';

// Issue 14: every command's output survives a pipe of any size to a slow reader, stdout carries
// only idem's own output, a capped listing says so, and control characters never reach a terminal.
const PIPELINE = 'online-retail-invoices';
const ROWS = 3000;
const RAW = 'x'.repeat(400);

/**
 * Runs the CLI with stdout a real pipe that nobody reads for `stallMs` (the kernel's pipe buffer,
 * 64 KiB on Linux, fills and idem's writes queue up), then reads it all.
 */
function runThroughSlowPipe(args: string[], env: Record<string, string>, stallMs = 1500): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(PROJECT_DIR, 'bin/idem.js'), ...args], { cwd: PROJECT_DIR, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pause();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return (async () => {
    await delay(stallMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stdout.resume();
    const code = await closed;
    return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  })();
}

describe('output through a pipe', () => {
  let testDb: TestDatabase;
  let db: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    testDb = await createTestDatabase('sqlite', 'output-pipe');
    db = await openMigratedDatabase(testDb.url);
    const writer = new QuarantineWriter(db, PIPELINE, '2010-12-01', '2026-01-01T00:00:00.000Z');
    for (let line = 2; line < ROWS + 2; line++) {
      await writer.add({ source: 'invoices-2010-12-01.csv', line, reason: `Quantity: expected an integer (got "x${line}")`, raw: line === 2 ? `\u001b[2J${RAW}` : RAW });
    }
    await writer.flush();
    env = { DATABASE_URL: testDb.url, LOG_LEVEL: 'info' };
  });

  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  it('quarantine --json: more than 1 MiB reaches a slow reader whole, and is JSON', async () => {
    const result = await runThroughSlowPipe(['quarantine', PIPELINE, '--json', '--limit', String(ROWS)], env);
    expect(result.code, result.stderr).toBe(0);
    expect(Buffer.byteLength(result.stdout)).toBeGreaterThan(1024 * 1024);
    const entries = JSON.parse(result.stdout) as { line: number; raw: string }[];
    expect(entries).toHaveLength(ROWS);
    expect(entries.at(-1)!.line).toBe(ROWS + 1);
    // JSON output is JSON: the escape character is JSON's own escape, as the row holds it.
    expect(entries[0]!.raw.startsWith('\u001b[2J')).toBe(true);
    expect(result.stderr).toBe('');
  });

  it('the text view reaches a slow reader whole, says where it is capped and how to see the rest, and escapes control characters', async () => {
    const all = await runThroughSlowPipe(['quarantine', PIPELINE, '--limit', String(ROWS)], env);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(ROWS + 1);
    expect(all.stdout).not.toContain('\u001b');
    expect(all.stdout).toContain('\\x1b[2J');

    const capped = await runThroughSlowPipe(['quarantine', PIPELINE], env, 200);
    expect(capped.code, capped.stderr).toBe(0);
    const lines = capped.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 1000 + 1);
    expect(lines.at(-1)).toBe(`showing the first 1000 of ${ROWS} quarantined rows; --limit ${ROWS} shows them all, --run-key K one run key`);

    const cappedJson = await runThroughSlowPipe(['quarantine', PIPELINE, '--json'], env, 200);
    expect(JSON.parse(cappedJson.stdout)).toHaveLength(1000);
    expect(cappedJson.stderr).toBe(`idem: showing the first 1000 of ${ROWS} quarantined rows; --limit ${ROWS} shows them all, --run-key K one run key\n`);
  });

  it('idem --version prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { version: string };
    const result = await runThroughSlowPipe(['--version'], env, 0);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});
