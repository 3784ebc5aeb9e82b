import { getResponse, http, HttpResponse, type RequestHandler } from 'msw';
import { canonicalJson } from '../../sandbox/canonical-json.ts';
import { changeOneValue, type ValueChange } from '../change-one-value.ts';
import type { ChangedCopyRequest, ChangedSource } from '../source-kind.ts';
import type { HttpJsonSource } from './http-json-source.ts';

/** An answer's JSON body, or undefined when it is no 2xx JSON answer. */
async function jsonBody(response: Response | undefined): Promise<unknown> {
  if (!response || response.status < 200 || response.status > 299 || !(response.headers.get('content-type') ?? '').includes('json')) return undefined;
  return (await response.clone().json()) as unknown;
}

/**
 * `idem prove`'s changed copy of an HTTP JSON source served by handlers (see
 * `SourceKind.changedCopy`): the stand-in's handlers, wrapped so that the first item of the
 * source's first page comes back with one value changed (see `changeOneValue`) on every page it
 * appears on, everything else as the handlers answer it. The item is changed inside the body, in
 * the array the source's `items` gives (an `items` that copies the array cannot be changed so).
 */
export async function changedHttpJsonHandlers(source: HttpJsonSource<unknown>, request: ChangedCopyRequest): Promise<ChangedSource | { readonly unchanged: string }> {
  const handlers = request.handlers as readonly RequestHandler[] | undefined;
  if (!handlers) return { unchanged: 'the source is not served by stand-in handlers (describe it in source() of stand-ins/<pipeline>.ts)' };
  if (source.row === undefined) return { unchanged: 'the HTTP JSON source declares no row schema' };
  const row = source.row;
  const baseUrl = new URL(request.location).origin;
  const body = await jsonBody(await getResponse([...handlers], new Request(request.location), { baseUrl }));
  const items = body === undefined ? undefined : source.items(body);
  const first = Array.isArray(items) ? (items[0] as unknown) : undefined;
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return { unchanged: `${request.location} answered no item to change` };
  const found = changeOneValue(first as Record<string, unknown>, row, request.keep);
  if (!found) return { unchanged: `no field of the first item of ${request.location} can be changed to a value the row schema accepts` };
  const original = canonicalJson(first);
  const changed = found.record;
  const wrapped = http.all('*', async ({ request: asked }) => {
    // Served on a port of its own: the handlers' relative paths resolve against it.
    const response = await getResponse([...handlers], asked, { baseUrl: new URL(asked.url).origin });
    const page = await jsonBody(response);
    const list = page === undefined ? undefined : source.items(page);
    if (!response || !Array.isArray(list)) return response ?? new HttpResponse(null, { status: 501 });
    const at = list.findIndex((item) => canonicalJson(item) === original);
    if (at === -1) return response;
    list[at] = changed;
    // The handlers' headers but their length: the changed body has its own.
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return HttpResponse.json(page as Record<string, unknown>, { status: response.status, headers });
  });
  return { change: describe(found.change), handlers: [wrapped] };
}

function describe(change: ValueChange): string {
  return `first item, ${change.field}: ${JSON.stringify(change.from)} → ${JSON.stringify(change.to)}`;
}
