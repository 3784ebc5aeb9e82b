import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'msw';
import { UsageError } from '../errors/usage-error.ts';
import { importProjectModule } from './import-project-module.ts';

/** What `stand-ins/<pipeline>.ts` describes: fresh msw handlers per destination name, and for the HTTP source. */
export interface StandInHandlers {
  /** Handlers per destination name; a destination left out keeps the default stand-in. */
  readonly destinations: Readonly<Record<string, readonly RequestHandler[]>>;
  /** Handlers for the pipeline's HTTP JSON source, when the module describes it. */
  readonly source: readonly RequestHandler[] | undefined;
  /**
   * Per described destination, whether its API honours an `Idempotency-Key` header: answers a
   * repeat of a key with its first answer, applying nothing again (Stripe's contract,
   * https://docs.stripe.com/api/idempotent_requests). The module's `honoursIdempotencyKeys`
   * export; a destination it leaves out honours them (the stand-in replays a repeated key itself,
   * as the API is then assumed to). `false`: the stand-in replays nothing, and `idem prove` says
   * that the `idempotency-key` strategy cannot hold against that API.
   */
  readonly honoursIdempotencyKeys: Readonly<Record<string, boolean>>;
}

/** Where a pipeline's stand-in handlers live, relative to the project directory. */
export function standInModulePath(pipelineName: string): string {
  return path.join('stand-ins', `${pipelineName}.ts`);
}

/**
 * Loads `<projectDir>/stand-ins/<pipeline>.ts`, the msw description of the pipeline's APIs that
 * the test kit and `idem prove` serve on loopback ports. It exports `destinations()` (handlers
 * per destination name) and/or `source()` (handlers for an HTTP source); each is called once per
 * use, so handlers that keep records start empty every time. It may export
 * `honoursIdempotencyKeys`, `{ [destination name]: boolean }` (see
 * `StandInHandlers.honoursIdempotencyKeys`).
 * @returns undefined when the file does not exist.
 * @throws UsageError when the module exports neither function, or one returns the wrong shape.
 */
export async function loadStandInHandlers(projectDir: string, pipelineName: string): Promise<StandInHandlers | undefined> {
  const relative = standInModulePath(pipelineName);
  const file = path.join(projectDir, relative);
  if (!existsSync(file)) return undefined;
  const module = await importProjectModule(projectDir, file);
  const { destinations, source, honoursIdempotencyKeys = {} } = module as { destinations?: unknown; source?: unknown; honoursIdempotencyKeys?: unknown };
  if (typeof destinations !== 'function' && typeof source !== 'function') {
    throw new UsageError(`${relative} must export destinations(): Record<destination name, msw handlers[]> and/or source(): msw handlers[]`);
  }
  const described = typeof destinations === 'function' ? (destinations as () => unknown)() : {};
  if (described === null || typeof described !== 'object' || Array.isArray(described) || !Object.values(described).every(Array.isArray)) {
    throw new UsageError(`${relative}: destinations() must return { [destination name]: msw handlers[] }`);
  }
  const sourceHandlers = typeof source === 'function' ? (source as () => unknown)() : undefined;
  if (sourceHandlers !== undefined && !Array.isArray(sourceHandlers)) throw new UsageError(`${relative}: source() must return an array of msw handlers`);
  if (honoursIdempotencyKeys === null || typeof honoursIdempotencyKeys !== 'object' || !Object.values(honoursIdempotencyKeys).every((v) => typeof v === 'boolean')) {
    throw new UsageError(`${relative}: honoursIdempotencyKeys must be { [destination name]: true | false }`);
  }
  return {
    destinations: described as Record<string, RequestHandler[]>,
    source: sourceHandlers as RequestHandler[] | undefined,
    honoursIdempotencyKeys: honoursIdempotencyKeys as Record<string, boolean>,
  };
}
