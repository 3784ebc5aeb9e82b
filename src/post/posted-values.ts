import { PipelineError } from '../errors/pipeline-error.ts';
import { lazyJsonDocument } from '../http/lazy-json-document.ts';
import { RawJson } from '../http/raw-json.ts';

/**
 * Names that JavaScript itself and test libraries read from any object to learn what it is
 * (`JSON.stringify`, `await`, vitest and jest's matchers and printers, React's element check):
 * reading one that is no column gives `undefined`, as on a plain object, never an error.
 */
const PROBES: ReadonlySet<string> = new Set([
  'toJSON', 'then', 'asymmetricMatch', 'nodeType', 'tagName', '$$typeof', '_isMockFunction', 'inspect', '@@__IMMUTABLE_ITERABLE__@@', '@@__IMMUTABLE_RECORD__@@',
]);

/**
 * The one handler of every PostedRow's `values`. A json column starts as the same `RawJson` as in
 * `rawJson` and becomes its document (see `lazyJsonDocument`) on its first read, by property,
 * spread, `Object.entries` or `JSON.stringify` alike, and kept. A name that is no column (and not
 * one of {@link PROBES}, nor an `Object.prototype` member) is the pipeline's mistake: a silent
 * `undefined` would drop the field from a request body. (An accessor per object instead gave
 * every row its own hidden classes, which V8 allocates in old space: the post stage's heap grew
 * by 60 MB over the year.)
 */
const POSTED_VALUES: ProxyHandler<Record<string, unknown>> = {
  get(target, key) {
    const value: unknown = Reflect.get(target, key);
    if (value instanceof RawJson) return (target[key as string] = lazyJsonDocument(value));
    if (value === undefined && typeof key === 'string' && !(key in target) && !PROBES.has(key)) {
      throw new PipelineError(`row.values.${key}: the pipeline has no column ${JSON.stringify(key)} (its columns: ${Object.keys(target).join(', ')})`);
    }
    return value;
  },
  getOwnPropertyDescriptor(target, key) {
    const value: unknown = Reflect.get(target, key);
    if (value instanceof RawJson) target[key as string] = lazyJsonDocument(value);
    return Reflect.getOwnPropertyDescriptor(target, key);
  },
};

/**
 * A PostedRow's `values` from the canonical values of a target row, its json columns each as a
 * `RawJson` (or `null`): see {@link POSTED_VALUES}. Takes `values` over; the caller keeps no other
 * reference to it.
 */
export function postedValues<Values>(values: Record<string, unknown>): Values {
  return new Proxy(values, POSTED_VALUES) as Values;
}
