import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { UsageError } from '../errors/usage-error.ts';

/** The places in a run where a failpoint can fire, in run order. */
export const FAILPOINT_NAMES = ['before-stage', 'mid-stage', 'after-extract', 'after-stage', 'mid-upsert', 'after-upsert', 'before-post', 'before-complete'] as const;
export type FailpointName = (typeof FAILPOINT_NAMES)[number];

type Action = { kind: 'kill' } | { kind: 'sleep'; ms: number } | { kind: 'fail' } | { kind: 'wait'; file: string };

/** How often a `wait:<file>` failpoint looks for its file, in ms. */
const WAIT_POLL_MS = 20;

/**
 * Fault injection for crash and overlap tests (the "failpoint" pattern of etcd's gofail and
 * FreeBSD's fail(9)), set with `IDEM_FAILPOINTS="mid-stage=kill,after-stage=sleep:3000"`:
 * `kill` SIGKILLs the process on the spot (a crash, nothing cleaned up), `sleep:<ms>` pauses,
 * `fail` throws, `wait:<file>` holds the run there until the file exists (a test releases it when
 * it has seen what it looks for, instead of racing a sleep). Unset, every `hit` is a no-op.
 */
export class Failpoints {
  readonly #actions = new Map<FailpointName, Action>();

  /** @throws UsageError for an unknown point or action. */
  constructor(spec: string | undefined) {
    for (const item of (spec ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      const [name, action = ''] = item.split('=') as [FailpointName, string?];
      if (!FAILPOINT_NAMES.includes(name)) throw new UsageError(`IDEM_FAILPOINTS names an unknown point "${name}" (known: ${FAILPOINT_NAMES.join(', ')})`);
      const sleep = /^sleep:(\d+)$/.exec(action);
      const wait = /^wait:(.+)$/.exec(action);
      if (sleep) this.#actions.set(name, { kind: 'sleep', ms: Number(sleep[1]) });
      else if (wait) this.#actions.set(name, { kind: 'wait', file: wait[1]! });
      else if (action === 'kill' || action === 'fail') this.#actions.set(name, { kind: action });
      else throw new UsageError(`IDEM_FAILPOINTS action for ${name} must be kill, fail, sleep:<ms> or wait:<file> (got "${action}")`);
    }
  }

  /** Fires the point's action, if one is set; a `wait` logs that it waits (on `log`), so a test can wait for that line. */
  async hit(name: FailpointName, log?: Logger): Promise<void> {
    const action = this.#actions.get(name);
    if (!action) return;
    if (action.kind === 'wait') log?.info({ failpoint: name, waitFor: action.file }, `failpoint ${name}: waiting for ${action.file}`);
    if (action.kind === 'kill') process.kill(process.pid, 'SIGKILL');
    if (action.kind === 'fail') throw new Error(`failpoint ${name} fired`);
    if (action.kind === 'sleep') await new Promise((resolve) => setTimeout(resolve, action.ms));
    if (action.kind === 'wait') while (!existsSync(action.file)) await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}
