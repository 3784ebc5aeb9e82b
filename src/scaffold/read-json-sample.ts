import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { UsageError } from '../errors/usage-error.ts';

/** A JSON sample as `idem new` reads it: its items, and where they are in the body. */
export interface JsonSample {
  readonly items: readonly Readonly<Record<string, unknown>>[];
  /** The body's property that holds the items; undefined when the body is the array itself. */
  readonly itemsProperty: string | undefined;
  /** The fields of the items, in order of first appearance. */
  readonly fields: readonly string[];
  /** Where the source reads: the URL's path and query, or `/<file name>` for a file sample. */
  readonly path: string;
  /** The URL's origin (the `IDEM_SOURCES` base URL); undefined for a file sample. */
  readonly baseUrl: string | undefined;
}

/**
 * Reads a JSON sample from a file or an `http(s)://` URL (one GET with undici). Its items are
 * the body when it is an array, or the first property of the body that is an array of objects.
 * @throws UsageError naming the sample when it cannot be read, is not JSON, or holds no items.
 */
export async function readJsonSample(location: string): Promise<JsonSample> {
  const isUrl = /^https?:\/\//.test(location);
  let body: unknown;
  try {
    if (isUrl) {
      const response = await request(location, { headers: { accept: 'application/json' } });
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
      body = await response.body.json();
    } else {
      body = JSON.parse(readFileSync(location, 'utf8')) as unknown;
    }
  } catch (error) {
    throw new UsageError(`${location}: cannot read the sample as JSON: ${(error as Error).message}`, { cause: error });
  }
  const isItems = (value: unknown): value is Record<string, unknown>[] =>
    Array.isArray(value) && value.length > 0 && value.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item));
  let itemsProperty: string | undefined;
  let items: Record<string, unknown>[] | undefined;
  if (isItems(body)) items = body;
  else if (body !== null && typeof body === 'object') {
    itemsProperty = Object.keys(body).find((key) => isItems((body as Record<string, unknown>)[key]));
    if (itemsProperty !== undefined) items = (body as Record<string, Record<string, unknown>[]>)[itemsProperty];
  }
  if (!items) throw new UsageError(`${location}: the sample holds no items: expected an array of objects, or an object with one`);
  const fields = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const url = isUrl ? new URL(location) : undefined;
  const name = location.split(/[\\/]/).pop()!.replace(/\.json$/i, '');
  return { items, itemsProperty, fields, path: url ? `${url.pathname}${url.search}` : `/${name}`, baseUrl: url?.origin };
}
