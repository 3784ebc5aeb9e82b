import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'msw';
import { UsageError } from '../errors/usage-error.ts';
import { importProjectModule } from './import-project-module.ts';

/**
 * What a destination's request bodies must look like, by kind of request: any schema with zod's
 * `safeParse` (a zod schema: `z.strictObject({ … })` also names a field the API does not know).
 * A kind of request left out is not checked.
 */
export interface RequestBodyDescription {
  readonly create?: BodySchema;
  readonly update?: BodySchema;
}

/** A schema of a request body: what `safeParse` of zod answers (an issue's `path` and `message`). */
export interface BodySchema {
  safeParse(body: unknown): { success: true } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** What `stand-ins/<pipeline>.ts` describes: fresh msw handlers per destination name, and for the HTTP source. */
export interface StandInHandlers {
  /** Handlers per destination name; a destination left out keeps the default stand-in. */
  readonly destinations: Readonly<Record<string, readonly RequestHandler[]>>;
  /** Handlers for the pipeline's HTTP JSON source, when the module describes it. */
  readonly source: readonly RequestHandler[] | undefined;
  /**
   * `sourceDatabase(db, range)`, when the module exports it: fills an empty throwaway database
   * (a knex instance) with what a SQL source's query reads, for the run's range (`startsAt`,
   * `endsAt`, ISO 8601 UTC), so `idem prove` never reads the real source database.
   */
  readonly sourceDatabase: ((db: unknown, range: { readonly businessDate: string; readonly startsAt: string; readonly endsAt: string }) => Promise<void>) | undefined;
  /** Request bodies per destination name (`export const bodies`), checked by `idem prove`; a destination left out is not checked. */
  readonly bodies: Readonly<Record<string, RequestBodyDescription>>;
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
 * per destination name), `source()` (handlers for an HTTP source) and/or `sourceDatabase(db,
 * range)` (the rows of a SQL source, written into a throwaway database); each is called once per
 * use, so handlers that keep records start empty every time. It may also export `bodies`:
 * `{ [destination name]: { create?: schema, update?: schema } }`, the request bodies `idem prove`
 * checks each destination's `request()` against (see {@link RequestBodyDescription}).
 * It may export `honoursIdempotencyKeys`, `{ [destination name]: boolean }` (see
 * `StandInHandlers.honoursIdempotencyKeys`).
 * @returns undefined when the file does not exist.
 * @throws UsageError when the module exports neither function, or one returns the wrong shape, or
 *   `bodies` is not an object of `{ create?, update? }` schemas (naming the destination and key).
 */
export async function loadStandInHandlers(projectDir: string, pipelineName: string): Promise<StandInHandlers | undefined> {
  const relative = standInModulePath(pipelineName);
  const file = path.join(projectDir, relative);
  if (!existsSync(file)) return undefined;
  const module = await importProjectModule(projectDir, file);
  const { destinations, source, sourceDatabase, bodies, honoursIdempotencyKeys = {} } = module as { destinations?: unknown; source?: unknown; sourceDatabase?: unknown; bodies?: unknown; honoursIdempotencyKeys?: unknown };
  if (typeof destinations !== 'function' && typeof source !== 'function' && typeof sourceDatabase !== 'function') {
    throw new UsageError(`${relative} must export destinations(): Record<destination name, msw handlers[]>, source(): msw handlers[] and/or sourceDatabase(db, range)`);
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
    sourceDatabase: typeof sourceDatabase === 'function' ? (sourceDatabase as StandInHandlers['sourceDatabase']) : undefined,
    bodies: checkedBodies(relative, bodies),
    honoursIdempotencyKeys: honoursIdempotencyKeys as Record<string, boolean>,
  };
}

/** `bodies` of a stand-in module, checked for its shape. */
function checkedBodies(relative: string, bodies: unknown): Readonly<Record<string, RequestBodyDescription>> {
  if (bodies === undefined) return {};
  const shape = '{ [destination name]: { create?: zod schema, update?: zod schema } }';
  if (bodies === null || typeof bodies !== 'object' || Array.isArray(bodies)) throw new UsageError(`${relative}: bodies must be ${shape}`);
  for (const [destination, description] of Object.entries(bodies)) {
    if (description === null || typeof description !== 'object') throw new UsageError(`${relative}: bodies["${destination}"] must be { create?: zod schema, update?: zod schema }`);
    for (const [kind, schema] of Object.entries(description as Record<string, unknown>)) {
      if (kind !== 'create' && kind !== 'update') throw new UsageError(`${relative}: bodies["${destination}"].${kind} is no kind of request: use create or update`);
      if (typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') throw new UsageError(`${relative}: bodies["${destination}"].${kind} must be a zod schema (a safeParse function)`);
    }
  }
  return bodies as Record<string, RequestBodyDescription>;
}
