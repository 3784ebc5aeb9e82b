import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse, type RequestHandler } from 'msw';
import type { Database } from '../db/database.ts';
import type { DestinationDefinition } from '../destination/destination-definition.ts';
import type { PostStrategy } from '../destination/post-strategy.ts';
import { postStrategyOf } from '../destination/post-strategy-registry.ts';
import { readIncomingRequest } from '../http/read-incoming-request.ts';
import { selectJobLedgerItems } from '../ledger/select-job-ledger-items.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { readPostedRows } from '../post/read-posted-rows.ts';
import { canonicalJson } from '../sandbox/canonical-json.ts';
import type { SandboxFault } from '../sandbox/sandbox-fault.ts';

/** Methods that create or change a remote record. */
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/**
 * One destination of `idem prove`, described by the data engineer's msw request handlers
 * (`stand-ins/<pipeline>.ts`) and served on a loopback port. The handlers say what the API
 * answers; this wrapper adds what the proof needs around them, from the pipeline's own
 * destination definition and strategy:
 * - which record a write is: its method, path and body are matched against `request(row)` of the
 *   rows in the post ledger, so every remote record is counted under its business key, and every
 *   update (the request of a row with a remote reference) too;
 * - the `idempotency-key` contract (for that strategy, where the API honours keys: see
 *   `StandInHandlers.honoursIdempotencyKeys`): a repeated key gets the first answer again, and
 *   the handlers see the request once;
 * - scripted faults (`status`, `status-after-commit`, `late-commit`) and the `onWrite` hook where a kill lands.
 */
export interface HandlerStandIn {
  readonly url: string;
  /** Requests received, every method. */
  requests(): number;
  /** Writes (POST, PUT, PATCH) received. */
  writes(): number;
  /** Records created (a 2xx answer to a create the handlers processed), per business key; `?` for a write no ledger row's `request` produces. */
  recordsByReference(): ReadonlyMap<string, number>;
  /** Updates applied (a 2xx answer to a write the handlers processed that a ledger row with a remote reference produces), per business key. */
  updatesByReference(): ReadonlyMap<string, number>;
  /** The answer bodies of the records created for one business key, oldest first. */
  recordsFor(reference: string): unknown[];
  onWrite: (() => void) | undefined;
  addFaults(faults: readonly SandboxFault[]): void;
  close(): Promise<void>;
}

/** Starts a {@link HandlerStandIn}; `withDatabase` opens the case's scratch database (to read the ledger). */
export async function startHandlerStandIn(args: {
  pipeline: PipelineDefinition;
  destination: DestinationDefinition;
  strategy: PostStrategy;
  handlers: readonly RequestHandler[];
  /** Whether the described API honours idempotency keys (see `StandInHandlers.honoursIdempotencyKeys`). */
  honoursKeys: boolean;
  withDatabase: <T>(work: (db: Database) => Promise<T>) => Promise<T>;
}): Promise<HandlerStandIn> {
  const { pipeline, destination, handlers } = args;
  let requests = 0;
  let writes = 0;
  const records = new Map<string, unknown[]>();
  const updates = new Map<string, number>();
  const replies = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>();
  const faults: SandboxFault[] = [];
  /** What each request a ledger row produces is: its business key, and whether it updates a remote record (the row has a remote reference). */
  let known = new Map<string, { reference: string; update: boolean }>();
  let base = '';
  let standIn: HandlerStandIn | undefined;

  async function referenceOf(method: string, path: string, body: unknown): Promise<{ reference: string; update: boolean }> {
    const key = canonicalJson([method, path, body]);
    if (!known.has(key)) {
      known = await args.withDatabase(async (db) => {
        const items = (await selectJobLedgerItems(db, pipeline.name)).filter((item) => item.destination === destination.name);
        const rows = await readPostedRows(db, pipeline, items);
        const index = new Map<string, { reference: string; update: boolean }>();
        for (const row of rows.values()) {
          const request = destination.request(row);
          index.set(canonicalJson([request.method, request.path, JSON.parse(JSON.stringify(request.body ?? null)) as unknown]), { reference: row.sourceReference, update: row.remoteReference !== undefined });
        }
        return index;
      });
    }
    return known.get(key) ?? { reference: '?', update: method !== 'POST' };
  }

  function takeFault(): SandboxFault | undefined {
    const fault = faults[0];
    if (!fault) return undefined;
    const left = (fault.count ?? 1) - 1;
    if (left <= 0) faults.shift();
    else faults[0] = { ...fault, count: left };
    return fault;
  }

  async function answer(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const { method, path, text, request } = await readIncomingRequest(incoming, base);
    requests += 1;
    const write = WRITES.has(method);
    if (write) {
      writes += 1;
      standIn?.onWrite?.();
    }
    const key = incoming.headers['idempotency-key'];
    const replayKey = write && args.honoursKeys && postStrategyOf(args.strategy).sendsIdempotencyKey && typeof key === 'string' ? key : undefined;
    const replay = replayKey ? replies.get(replayKey) : undefined;
    if (replay) return send(outgoing, replay);
    const fault = write ? takeFault() : undefined;
    if (fault?.kind === 'status') return send(outgoing, json(fault.status, fault.body ?? { error: `stand-in fault ${fault.status}` }));
    // Applied late: after the client may have given up on it.
    if (fault?.kind === 'late-commit') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const response = await getResponse([...handlers], request, { baseUrl: base });
    const reply = response
      ? { status: response.status, headers: headersOf(response), body: Buffer.from(await response.arrayBuffer()) }
      : json(501, { error: `stand-in for ${destination.name}: no request handler for ${method} ${path}` });
    if (write && reply.status >= 200 && reply.status < 300) {
      const { reference, update } = await referenceOf(method, path, parse(text));
      if (update) updates.set(reference, (updates.get(reference) ?? 0) + 1);
      else records.set(reference, [...(records.get(reference) ?? []), parse(reply.body.toString('utf8'))]);
      if (replayKey) replies.set(replayKey, reply);
    }
    if (fault?.kind === 'status-after-commit') return send(outgoing, json(fault.status, fault.body ?? { error: 'gateway timeout' }));
    send(outgoing, reply);
  }

  const server = createServer((incoming, outgoing) => {
    answer(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) outgoing.writeHead(500, { 'content-type': 'text/plain' });
      outgoing.end(`stand-in for ${destination.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn = {
    url: base,
    requests: () => requests,
    writes: () => writes,
    recordsByReference: () => new Map([...records].map(([reference, list]) => [reference, list.length])),
    updatesByReference: () => new Map(updates),
    recordsFor: (reference) => records.get(reference) ?? [],
    onWrite: undefined,
    addFaults: (more) => faults.push(...more),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return standIn;
}

function json(status: number, body: unknown): { status: number; headers: Record<string, string>; body: Buffer } {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
}

function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return headers;
}

function send(outgoing: ServerResponse, reply: { status: number; headers: Record<string, string>; body: Buffer }): void {
  outgoing.writeHead(reply.status, reply.headers);
  outgoing.end(reply.body);
}

function parse(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
