import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { startSandboxApi, type SandboxApi } from '../sandbox/start-sandbox-api.ts';
import type { SandboxFault } from '../sandbox/sandbox-fault.ts';
import type { SandboxRecord } from '../sandbox/sandbox-state.ts';

/** What the stand-ins hold: records per destination and reference. */
export interface RemoteTally {
  /** Records across every destination. */
  readonly records: number;
  /** `destination reference` (just the reference with one destination) of each record held more than once, with its count. */
  readonly duplicates: readonly (readonly [string, number])[];
}

/**
 * One in-process sandbox accounting API per destination of a pipeline, on free loopback ports,
 * standing in for the real destinations while `idem prove` crashes and reruns the pipeline.
 * One per destination, so "each record exactly once" holds per destination.
 */
export interface DestinationStandIns {
  /** `IDEM_DESTINATIONS` for child runs: every destination pointed at its stand-in. */
  readonly env: string;
  /** API requests received so far, every method. */
  requests(): number;
  /** `POST` requests received so far. */
  posts(): number;
  tally(): RemoteTally;
  /** The records a destination holds for one reference (to resolve items in review as an operator would). */
  recordsFor(destination: string, reference: string): SandboxRecord[];
  /** Called on every `POST` a stand-in receives, before it is processed: a kill here is a crash mid-post. */
  onPost: (() => void) | undefined;
  /** Queues scripted faults at every stand-in (see `SandboxFault`). */
  addFaults(faults: readonly SandboxFault[]): void;
  /** Stops every stand-in. */
  close(): Promise<void>;
}

/**
 * Starts the stand-ins. Each destination keeps its strategy (the pipeline's, or the override in
 * `config.destinations`) and its `http` settings; its URL and headers (credentials of the real
 * destination) are replaced.
 */
export async function startDestinationStandIns(pipeline: PipelineDefinition, config: ResolvedConfig): Promise<DestinationStandIns> {
  const sandboxes = new Map<string, SandboxApi>();
  const settings: Record<string, unknown> = {};
  const standIns: DestinationStandIns = {
    get env() {
      return JSON.stringify(settings);
    },
    requests: () => sum((s) => s.state.stats().requests.length),
    posts: () => sum((s) => s.state.postRequests),
    tally() {
      const duplicates: [string, number][] = [];
      let records = 0;
      for (const [name, sandbox] of sandboxes) {
        const { byReference } = sandbox.state.stats();
        for (const [reference, count] of Object.entries(byReference)) {
          records += count;
          if (count > 1) duplicates.push([sandboxes.size > 1 ? `${name} ${reference}` : reference, count]);
        }
      }
      return { records, duplicates };
    },
    recordsFor: (destination, reference) => sandboxes.get(destination)?.state.recordsByReference(reference) ?? [],
    onPost: undefined,
    addFaults(faults) {
      for (const sandbox of sandboxes.values()) sandbox.addFaults(faults);
    },
    async close() {
      await Promise.all([...sandboxes.values()].map((s) => s.close()));
    },
  };
  function sum(of: (sandbox: SandboxApi) => number): number {
    return [...sandboxes.values()].reduce((total, sandbox) => total + of(sandbox), 0);
  }
  try {
    for (const destination of pipeline.destinations) {
      const sandbox = await startSandboxApi({
        port: 0,
        onRequest: (request) => {
          if (request.method === 'POST') standIns.onPost?.();
        },
      });
      sandboxes.set(destination.name, sandbox);
      const deployed = config.destinations[destination.name];
      settings[destination.name] = { url: sandbox.url, ...(deployed?.strategy ? { strategy: deployed.strategy } : {}), ...(deployed?.http ? { http: deployed.http } : {}) };
    }
    return standIns;
  } catch (error) {
    await standIns.close();
    throw error;
  }
}
