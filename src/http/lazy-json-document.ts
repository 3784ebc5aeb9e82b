import { RawJson } from './raw-json.ts';

/** The text a document's proxy target holds until it is first read; `undefined` after. Not enumerable. */
const RAW = Symbol('idem.lazy-json-document.raw');
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

type Target = Record<string | symbol, unknown>;

/** Fills `target` with its document, once: the first read of anything in it. */
function materialise(target: Target): void {
  const raw = target[RAW] as RawJson | undefined;
  if (raw === undefined) return;
  target[RAW] = undefined;
  const parsed = raw.parse() as Record<string, unknown>;
  if (Array.isArray(target)) {
    const items = parsed as unknown as unknown[];
    for (let i = 0; i < items.length; i++) target[i] = items[i];
    return;
  }
  // defineProperty, not assignment: a member named `__proto__` stays a member.
  for (const key of Object.keys(parsed)) Object.defineProperty(target, key, { value: parsed[key], writable: true, enumerable: true, configurable: true });
}

/** `toJSON` of a document not read yet: its text where `stringifyJson` writes a body, else its parsed value (see `RawJson.toJSON`). */
function rawToJson(this: Target): unknown {
  return (this[RAW] as RawJson).toJSON();
}

/** `util.inspect` looks at a proxy's target, not through it: show the document. */
function inspectDocument(this: Target, _depth: number, options: unknown, inspect: (value: unknown, options: unknown) => string): string {
  materialise(this);
  return inspect(Array.isArray(this) ? [...(this as unknown[])] : { ...this }, options);
}

const hidden = (key: string | symbol): boolean => key === RAW || key === INSPECT;

/** The one handler of every document: each trap fills the target first, except `toJSON` before that. */
const LAZY: ProxyHandler<Target> = {
  get(target, key, receiver) {
    if (key === RAW) return target[RAW];
    if (key === 'toJSON' && target[RAW] !== undefined) return rawToJson;
    materialise(target);
    return Reflect.get(target, key, receiver);
  },
  set(target, key, value, receiver) {
    materialise(target);
    return Reflect.set(target, key, value, receiver);
  },
  has(target, key) {
    materialise(target);
    return !hidden(key) && Reflect.has(target, key);
  },
  deleteProperty(target, key) {
    materialise(target);
    return Reflect.deleteProperty(target, key);
  },
  defineProperty(target, key, descriptor) {
    materialise(target);
    return Reflect.defineProperty(target, key, descriptor);
  },
  ownKeys(target) {
    materialise(target);
    return Reflect.ownKeys(target).filter((key) => !hidden(key));
  },
  getOwnPropertyDescriptor(target, key) {
    materialise(target);
    return hidden(key) ? undefined : Reflect.getOwnPropertyDescriptor(target, key);
  },
  preventExtensions(target) {
    materialise(target);
    // The hidden members go first: a non-extensible target must report every key it has.
    delete target[RAW];
    delete target[INSPECT];
    return Reflect.preventExtensions(target);
  },
};

/**
 * A json column's value from its JSON text (as `RawJson` holds it), for `PostedRow.values`. An
 * object or an array is a proxy that behaves as the parsed document (`Array.isArray`, indexing,
 * `map`, spreading, `Object.keys`, `util.inspect`), parsed when something in it is first read;
 * until then `stringifyJson`, which writes every request body, copies its text into the body as
 * it is, so a large document sent as it is costs neither a parse nor a serialisation. Any other
 * text (a string, number, boolean or null document) is parsed at once: nothing to save.
 */
export function lazyJsonDocument(raw: RawJson): unknown {
  // idem writes JSON text without leading whitespace; other text is looked at more closely.
  const first = raw.text[0] === '[' || raw.text[0] === '{' ? raw.text[0] : /\S/.exec(raw.text)?.[0];
  if (first !== '[' && first !== '{') return raw.parse();
  const target: Target = (first === '[' ? [] : {}) as Target;
  // Plain members (cheaper than defineProperty): every trap hides them.
  target[RAW] = raw;
  target[INSPECT] = inspectDocument;
  return new Proxy(target, LAZY);
}
