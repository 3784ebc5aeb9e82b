// Runs a command as a child process and measures it: wall time (spawn → exit, seconds) and,
// on request, peak RSS (KiB). Output goes to a file (never a pipe that could fill and stall).
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';

/** GNU time prints the child's peak RSS in KiB with `-f %M`; without it /proc/<pid>/status VmHWM is polled. */
const TIME_BIN = '/usr/bin/time';
export const peakRssMethod = existsSync(TIME_BIN) ? 'GNU time %M' : '/proc/<pid>/status VmHWM, polled every 20 ms';

let sequence = 0;
const activeChildren = new Set();

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch { /* already gone */ }
}

/** SIGTERMs every child runTimed started that is still running (the runner's cleanup). */
export function killActiveChildren() {
  for (const child of activeChildren) killGroup(child);
  activeChildren.clear();
}

/**
 * Runs `command args` to completion.
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, logDir: string, label?: string, measureRss?: boolean, stdinFile?: string, timeoutMs?: number }} options
 *   `logDir`: where the child's stdout+stderr file goes; `measureRss` (default false) wraps the
 *   command in GNU time when present; `stdinFile`: a file to read as stdin (default none);
 *   `timeoutMs`: SIGTERM the child (and GNU time's child) after this many ms (default none).
 * @returns {Promise<{ code: number | string, seconds: number, rssKb?: number, output: string, logFile: string, timedOut: boolean }>}
 *   `code` is the exit code, or `"signal X"`; `seconds` is wall time from spawn to exit.
 */
export async function runTimed(command, args, { env = process.env, cwd, logDir, label = 'child', measureRss = false, stdinFile, timeoutMs }) {
  sequence += 1;
  const logFile = path.join(logDir, `${String(sequence).padStart(3, '0')}-${label.replace(/[^\w.-]+/g, '_')}.log`);
  const rssFile = `${logFile}.rss`;
  const useTime = measureRss && existsSync(TIME_BIN);
  const [bin, argv] = useTime ? [TIME_BIN, ['-f', '%M', '-o', rssFile, command, ...args]] : [command, args];
  const fd = openSync(logFile, 'w');
  const stdin = stdinFile ? openSync(stdinFile, 'r') : 'ignore';
  let hwmKb = 0;
  let poll;
  const started = performance.now();
  const child = spawn(bin, argv, { cwd, env, stdio: [stdin, fd, fd], detached: true });
  // Its own process group, so a timeout or the runner's cleanup ends GNU time and its child together.
  activeChildren.add(child);
  let timedOut = false;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, timeoutMs);
  if (measureRss && !useTime) {
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
      } catch { /* exited */ }
    };
    poll = setInterval(sample, 20);
  }
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (c, signal) => resolve(c ?? `signal ${signal}`));
  });
  const seconds = (performance.now() - started) / 1000;
  activeChildren.delete(child);
  clearTimeout(timer);
  clearInterval(poll);
  closeSync(fd);
  if (typeof stdin === 'number') closeSync(stdin);
  const output = readFileSync(logFile, 'utf8');
  let rssKb;
  if (measureRss) {
    // GNU time writes "Command exited with non-zero status N" before the figure when the child fails.
    rssKb = useTime ? Number((existsSync(rssFile) ? readFileSync(rssFile, 'utf8') : '').trim().split('\n').at(-1)) : hwmKb;
  }
  return { code, seconds, rssKb, output, logFile, timedOut };
}

/**
 * Returns `result` when it exited 0.
 * @throws Error naming `what`, the exit code, the log file and the output's last 15 lines otherwise.
 */
export function mustSucceed(result, what) {
  if (result.code !== 0) {
    throw new Error(`${what} exited with ${result.code} (log ${result.logFile}); last output:\n${result.output.split('\n').slice(-15).join('\n')}`);
  }
  return result;
}

/**
 * Runs one of the bench's own Node scripts (`bench/<script>`, e.g. `floors/post-floor.js`) in its
 * own process, which prints its result as one JSON line last.
 * @param {{ repo: string, tmp: string }} ctx @param {string} script @param {string[]} args @param {string} what names it in errors
 * @param {{ measureRss?: boolean }} [options] `measureRss` (default false): also its peak RSS (see runTimed)
 * @returns {Promise<{ seconds: number, rssKb?: number, result: any }>} `seconds`: the whole process's wall time.
 * @throws Error when it exits other than 0 (see mustSucceed), or its last line is not JSON.
 */
export async function runBenchScript(ctx, script, args, what, { measureRss = false } = {}) {
  const label = path.basename(script, '.js');
  const run = mustSucceed(await runTimed(process.execPath, [path.join(ctx.repo, 'bench', script), ...args], { cwd: ctx.repo, logDir: ctx.tmp, label, measureRss }), what);
  return { seconds: run.seconds, rssKb: run.rssKb, result: JSON.parse(run.output.trim().split('\n').at(-1)) };
}
