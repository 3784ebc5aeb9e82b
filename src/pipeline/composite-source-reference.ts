/**
 * The one source reference of a record whose business key is several fields (`key: ['order_id',
 * 'line_no']`): each part percent-encoded as `encodeURIComponent` does (RFC 3986: every character
 * but the unreserved `A–Z a–z 0–9 - _ . ! ~ * ' ( )`), joined by `/`. A part never holds a `/`
 * once encoded, so two different keys never give the same reference (`a/b` + `c` is `a%2Fb/c`,
 * `a` + `b/c` is `a/b%2Fc`), and a key of plain ids stays readable: `536365/1`. A pipeline that
 * writes its own `toRecords` uses it for the same references.
 * @throws TypeError for fewer than two parts (a single key is its own text).
 */
export function compositeSourceReference(parts: readonly string[]): string {
  if (parts.length < 2) throw new TypeError(`compositeSourceReference: a composite key has two or more parts (got ${parts.length})`);
  return parts.map((part) => encodeURIComponent(part)).join('/');
}
