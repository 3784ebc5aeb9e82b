// The local sandbox accounting API (`idem sandbox-api`) as a child process: the pipeline's post
// destination during the benchmarks, never an ambient (possibly real) one.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * Starts `idem sandbox-api --port 0 --latency-ms N` and waits (up to 15 s) for its URL.
 * @param {{ idemBin: string, cwd: string, latencyMs: number }} options latency in ms before every answer
 * @returns {Promise<{ url: string, pid: number, reset(): Promise<void>, configure(settings: object): Promise<void>, stats(): Promise<object>, cpuSeconds(): number | undefined, stop(): void }>}
 * @throws Error when it does not print its URL in time.
 */
export async function startSandboxProcess({ idemBin, cwd, latencyMs }) {
  const child = spawn(process.execPath, [idemBin, 'sandbox-api', '--port', '0', '--latency-ms', String(latencyMs)], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 15_000);
    const onData = (data) => {
      output += data;
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  child.stdout.resume();
  child.stderr.resume();
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  if (!url) {
    stop();
    throw new Error(`the sandbox API did not start: ${output.trim().split('\n').at(-1) ?? 'no output'}`);
  }
  const admin = async (method, route, body) => {
    const res = await fetch(`${url}${route}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
    if (!res.ok) throw new Error(`sandbox ${method} ${route}: HTTP ${res.status}`);
    return res.json();
  };
  return {
    url,
    pid: child.pid,
    /** Forgets records, idempotency keys and counts (settings stay). */
    reset: async () => void (await admin('POST', '/_admin/reset')),
    /** Changes settings: `{ latencyMs?, maxRequestsPerSecond? }`. */
    configure: async (settings) => void (await admin('POST', '/_admin/faults', settings)),
    /** `{ records, postRequests, getRequests, … }` since the last reset. */
    stats: () => admin('GET', '/_admin/stats'),
    /** CPU seconds (user + system) the sandbox has used so far, from /proc; undefined elsewhere. */
    cpuSeconds: () => {
      try {
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
        return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
      } catch {
        return undefined;
      }
    },
    stop,
  };
}
