import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(PROJECT_DIR, 'bin', 'idem.js');

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout's JSON log lines, parsed. */
  readonly logs: Record<string, unknown>[];
  /** Wall time from spawn to exit, in ms. */
  readonly ms: number;
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
}

/** Starts `node bin/idem.js …args` as a real child process (the built CLI in dist/). */
export function startCli(args: readonly string[], env: Record<string, string | undefined> = {}): CliProcess {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      // Log lines are one JSON object each; other output (tables, pretty --json) is skipped.
      const logs = stdout.split('\n').flatMap((line) => {
        if (!line.startsWith('{"')) return [];
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
      resolve({ code, signal, stdout, stderr, logs, ms: performance.now() - started });
    });
  });
  return { child, done };
}

/** Runs the CLI to completion. */
export function runCli(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/** The `stage: 'summary'` log line of a run. */
export function summaryOf(result: CliResult): Record<string, any> {
  const summary = result.logs.find((line) => line.stage === 'summary');
  if (!summary) throw new Error(`no summary line; exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return summary as Record<string, any>;
}

/**
 * Runs the CLI, and again every 300 ms while it exits 75: after a SIGKILL on SQLite the app lock
 * is free only once the dead run's lease expires (tests set `IDEM_LOCK_LEASE_MS` low).
 */
export async function runCliWhenUnlocked(args: readonly string[], env: Record<string, string | undefined>, maxTries = 20): Promise<CliResult> {
  let result = await runCli(args, env);
  for (let tries = 1; result.code === 75 && tries < maxTries; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    result = await runCli(args, env);
  }
  return result;
}
