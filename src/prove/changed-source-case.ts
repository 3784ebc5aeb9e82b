import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RequestHandler } from 'msw';
import type { JobRun } from '../runs/job-run.ts';
import { fileRunKey, type RunKey } from '../runs/run-key.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import { serveHandlers } from '../testing/serve-handlers.ts';
import type { DestinationStandIns } from './destination-stand-ins.ts';
import type { ProveCase } from './prove-case.ts';

/** A case whose runs read the source with one value changed (see {@link changedSourceCase}). */
export interface ChangedSourceCase {
  /**
   * The case as the checks see it: `runArgs` run the changed source (`--force` on a date run key
   * the clean run completed, the copy's `--file` for a run keyed by a file), `env` reads it,
   * `jobRun`/`inspect` read that run key, counting the attempts made since the change only.
   */
  readonly view: ProveCase;
  /** What was changed, in words. */
  readonly change: string;
  close(): Promise<void>;
}

/**
 * Asks the source's kind for a changed copy (`SourceKind.changedCopy`) in the case `c`, after its
 * clean run, and gives the case that runs it. A write fault the checks add (`addFaults`) is
 * aimed at updates (`PUT /invoices/:id` at idem's sandbox).
 * @returns the changed case, or why the source cannot be changed (`{ unchanged }`): then the
 *   update path is not proved.
 */
export async function changedSourceCase(c: ProveCase): Promise<ChangedSourceCase | { readonly unchanged: string }> {
  const { pipeline, config, runKey } = c;
  const kind = sourceKindOf(pipeline.source);
  if (!kind.changedCopy) return { unchanged: `the source kind ${kind.name} offers no changed copy (SourceKind.changedCopy)` };
  const served = c.servedSource;
  const context = { pipelineName: pipeline.name, timeZone: pipeline.timeZone, config: served ? { ...config, sources: { ...config.sources, [pipeline.name]: { ...config.sources[pipeline.name], url: served.url } } } : config };
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-prove-changed-'));
  const closers: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const close = async (): Promise<void> => void (await Promise.all(closers.map((closer) => closer())));
  try {
    const keep = pipeline.key === undefined ? [] : typeof pipeline.key === 'string' ? [pipeline.key] : [...pipeline.key];
    const location = kind.locate(pipeline.source, runKey, context);
    const changed = await kind.changedCopy(pipeline.source, { location, runKey, dir, keep, ...(served ? { handlers: served.handlers } : {}) });
    if ('unchanged' in changed) {
      await close();
      return changed;
    }
    const env: Record<string, string> = { ...changed.env };
    if (changed.handlers) {
      const server = await serveHandlers(changed.handlers as readonly RequestHandler[]);
      closers.push(() => server.close());
      env.IDEM_SOURCES = JSON.stringify({ ...config.sources, [pipeline.name]: { ...config.sources[pipeline.name], url: server.url } });
    }
    const changedKey: RunKey = changed.file !== undefined ? await fileRunKey(changed.file) : runKey;
    const args = changed.file !== undefined ? ['run', pipeline.name, '--file', changed.file, '--triggered-by', 'idem prove'] : [...c.runArgs, '--force'];
    const baseline = (await c.jobRun(changedKey))?.attempts ?? 0;
    const since = (run: JobRun | undefined): JobRun | undefined => run && { ...run, attempts: run.attempts - baseline };
    const standIns: DestinationStandIns = Object.create(c.standIns, {
      addFaults: { value: (faults: Parameters<DestinationStandIns['addFaults']>[0]) => c.standIns.addFaults(faults.map((fault) => ({ route: 'PUT /invoices/:id', ...fault }))) },
      onPost: { get: () => c.standIns.onPost, set: (hook: DestinationStandIns['onPost']) => void (c.standIns.onPost = hook) },
    }) as DestinationStandIns;
    const view: ProveCase = {
      ...c,
      runKey: changedKey,
      standIns,
      runArgs: args,
      env: (extra = {}) => c.env({ ...env, ...extra }),
      inspect: async (key = changedKey) => {
        const state = await c.inspect(key);
        return { ...state, jobRun: key === changedKey ? since(state.jobRun) : state.jobRun };
      },
      jobRun: async (key = changedKey) => (key === changedKey ? since(await c.jobRun(key)) : c.jobRun(key)),
    };
    return { view, change: changed.change, close };
  } catch (error) {
    await close();
    throw error;
  }
}
