import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { loadStandInHandlers, type RequestBodyDescription } from '../project/load-stand-in-handlers.ts';
import { startSandboxApi } from '../sandbox/start-sandbox-api.ts';
import type { SandboxFault } from '../sandbox/sandbox-fault.ts';
import { postStrategyOf } from '../destination/post-strategy-registry.ts';
import { startHandlerStandIn } from './handler-stand-in.ts';

/** Methods that create or change a remote record. */
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** What the stand-ins hold: records per destination and reference. */
export interface RemoteTally {
  /** Records across every destination. */
  readonly records: number;
  /** `destination reference` (just the reference with one destination) of each record held more than once, with its count. */
  readonly duplicates: readonly (readonly [string, number])[];
  /** `destination reference` (just the reference with one destination) of each record updated, with the updates it applied (a replayed request applies none). */
  readonly updated: readonly (readonly [string, number])[];
}

/**
 * One in-process sandbox accounting API per destination of a pipeline, on free loopback ports,
 * standing in for the real destinations while `idem prove` crashes and reruns the pipeline.
 * One per destination, so "each record exactly once" holds per destination.
 */
export interface DestinationStandIns {
  /** `IDEM_DESTINATIONS` for child runs: every destination pointed at its stand-in. */
  readonly env: string;
  /** The destinations stood in by idem's sandbox, not described in `stand-ins/<pipeline>.ts`. */
  readonly sandboxed: readonly string[];
  /** The request bodies `stand-ins/<pipeline>.ts` describes (its `bodies`), per destination name. */
  readonly bodies: Readonly<Record<string, RequestBodyDescription>>;
  /**
   * The destinations whose strategy sends idempotency keys (`sendsIdempotencyKey`), each with
   * whether its stand-in honours them (idem's sandbox does; a described API as it declares, see
   * `StandInHandlers.honoursIdempotencyKeys`).
   */
  readonly keyed: readonly { readonly destination: string; readonly honoured: boolean }[];
  /** API requests received so far, every method. */
  requests(): number;
  /** Writes received so far: `POST`, `PUT` and `PATCH`. */
  posts(): number;
  tally(): RemoteTally;
  /** The records a destination holds for one reference, as its API answered their creation (to resolve items in review as an operator would). */
  recordsFor(destination: string, reference: string): unknown[];
  /** Called on every write (`POST`, `PUT`, `PATCH`) a stand-in receives, before it is processed: a kill here is a crash mid-post. */
  onPost: (() => void) | undefined;
  /** Queues scripted faults at every stand-in (see `SandboxFault`). */
  addFaults(faults: readonly SandboxFault[]): void;
  /** Stops every stand-in. */
  close(): Promise<void>;
}

/** One started stand-in, whichever kind. */
interface StandIn {
  readonly url: string;
  requests(): number;
  writes(): number;
  byReference(): ReadonlyMap<string, number>;
  /** Updates applied per reference. */
  updatesByReference(): ReadonlyMap<string, number>;
  recordsFor(reference: string): unknown[];
  addFaults(faults: readonly SandboxFault[]): void;
  close(): Promise<void>;
}

/**
 * Starts the stand-ins. A destination described in the project's `stand-ins/<pipeline>.ts` (msw
 * handlers, see `loadStandInHandlers`) is served by those handlers, wrapped so that the proof can
 * count records per business key by the destination's own `request` and hold the strategy's
 * contract (see `startHandlerStandIn`); any other gets idem's sandbox accounting API
 * (`POST /invoices`, `GET /invoices?reference=`). Each destination keeps its strategy (the
 * pipeline's, or the override in `config.destinations`) and its `http` settings; its URL and
 * headers (credentials of the real destination) are replaced.
 * @param withDatabase opens the case's scratch database: a described API's stand-in reads the ledger there.
 */
export async function startDestinationStandIns(
  pipeline: PipelineDefinition,
  config: ResolvedConfig,
  withDatabase: <T>(work: (db: Database) => Promise<T>) => Promise<T>,
): Promise<DestinationStandIns> {
  const started = new Map<string, StandIn>();
  const settings: Record<string, unknown> = {};
  const sandboxed: string[] = [];
  let bodies: Readonly<Record<string, RequestBodyDescription>> = {};
  const keyed: { destination: string; honoured: boolean }[] = [];
  const standIns: DestinationStandIns = {
    sandboxed,
    keyed,
    get bodies() {
      return bodies;
    },
    get env() {
      return JSON.stringify(settings);
    },
    requests: () => sum((s) => s.requests()),
    posts: () => sum((s) => s.writes()),
    tally() {
      const duplicates: [string, number][] = [];
      const updated: [string, number][] = [];
      let records = 0;
      for (const [name, standIn] of started) {
        const label = (reference: string): string => (started.size > 1 ? `${name} ${reference}` : reference);
        for (const [reference, count] of standIn.byReference()) {
          records += count;
          if (count > 1) duplicates.push([label(reference), count]);
        }
        for (const [reference, count] of standIn.updatesByReference()) if (count > 0) updated.push([label(reference), count]);
      }
      return { records, duplicates, updated };
    },
    recordsFor: (destination, reference) => started.get(destination)?.recordsFor(reference) ?? [],
    onPost: undefined,
    addFaults(faults) {
      for (const standIn of started.values()) standIn.addFaults(faults);
    },
    async close() {
      await Promise.all([...started.values()].map((s) => s.close()));
    },
  };
  function sum(of: (standIn: StandIn) => number): number {
    return [...started.values()].reduce((total, standIn) => total + of(standIn), 0);
  }
  try {
    const described = pipeline.destinations.length > 0 ? await loadStandInHandlers(config.projectDir, pipeline.name) : undefined;
    bodies = described?.bodies ?? {};
    for (const destination of pipeline.destinations) {
      const deployed = config.destinations[destination.name];
      const strategy = deployed?.strategy ?? destination.strategy;
      const handlers = described?.destinations[destination.name];
      const honoursKeys = !handlers || described?.honoursIdempotencyKeys[destination.name] !== false;
      if (postStrategyOf(strategy).sendsIdempotencyKey) keyed.push({ destination: destination.name, honoured: honoursKeys });
      let standIn: StandIn;
      if (handlers) {
        const wrapped = await startHandlerStandIn({ pipeline, destination, strategy, handlers, honoursKeys, withDatabase });
        wrapped.onWrite = () => standIns.onPost?.();
        standIn = { ...wrapped, url: wrapped.url, byReference: () => wrapped.recordsByReference(), updatesByReference: () => wrapped.updatesByReference() };
      } else {
        sandboxed.push(destination.name);
        const sandbox = await startSandboxApi({
          port: 0,
          onRequest: (request) => {
            if (WRITES.has(request.method)) standIns.onPost?.();
          },
        });
        standIn = {
          url: sandbox.url,
          requests: () => sandbox.state.stats().requests.length,
          writes: () => sandbox.state.postRequests + sandbox.state.updateRequests,
          byReference: () => new Map(Object.entries(sandbox.state.stats().byReference)),
          // A record's revision is 1 when created, one more for every update applied.
          updatesByReference: () => sandbox.state.records().reduce((updates, r) => updates.set(r.reference, (updates.get(r.reference) ?? 0) + r.revision - 1), new Map<string, number>()),
          recordsFor: (reference) => sandbox.state.recordsByReference(reference),
          addFaults: (faults) => sandbox.addFaults(faults),
          close: () => sandbox.close(),
        };
      }
      started.set(destination.name, standIn);
      settings[destination.name] = { url: standIn.url, ...(deployed?.strategy ? { strategy: deployed.strategy } : {}), ...(deployed?.http ? { http: deployed.http } : {}) };
    }
    return standIns;
  } catch (error) {
    await standIns.close();
    throw error;
  }
}
