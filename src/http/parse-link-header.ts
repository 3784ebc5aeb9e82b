/** One link of a `Link` header (RFC 8288 §3). */
export interface WebLink {
  /** The target URI-Reference exactly as written between `<` and `>`: possibly relative, unresolved. */
  readonly target: string;
  /**
   * The relation types of its `rel` parameter, lower-cased (registered types compare
   * case-insensitively, RFC 8288 §2.1.1), e.g. `['next']`, or `['next', 'last']` for
   * `rel="next last"`; empty without `rel`.
   */
  readonly rel: readonly string[];
  /** Every parameter by lower-cased name, unquoted; only the first of a repeated name counts (§3.3, §3.4). */
  readonly params: Readonly<Record<string, string>>;
}

/**
 * Reads a `Link` header field (RFC 8288 §3):
 * `Link = #link-value`, `link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )`,
 * `link-param = token BWS [ "=" BWS ( token / quoted-string ) ]`.
 *
 * Targets may hold `,` and `;` (they end at `>`), quoted strings may hold them too and use `\`
 * escapes (RFC 9110 §5.6.4). A malformed link-value is skipped up to the next top-level comma,
 * never fatal: a server's odd link must not hide its good ones.
 *
 * @param value - the header as undici gives it; repeated fields (an array) are one list, joined
 *   with commas as RFC 9110 §5.3 allows.
 * @returns the links in order; `[]` for a missing or empty header.
 * @example parseLinkHeader('<https://api.example.com/items?page=2>; rel="next"')[0]?.target // 'https://api.example.com/items?page=2'
 */
export function parseLinkHeader(value: string | readonly string[] | undefined): WebLink[] {
  const text = typeof value === 'string' ? value : (value ?? []).join(', ');
  const links: WebLink[] = [];
  let i = 0;
  const skip = (pattern: RegExp): void => {
    while (i < text.length && pattern.test(text[i]!)) i += 1;
  };
  const readQuoted = (): string => {
    let out = '';
    for (i += 1; i < text.length && text[i] !== '"'; i += 1) out += text[i] === '\\' && i + 1 < text.length ? text[++i] : text[i];
    i += 1; // the closing quote (or past the end of an unclosed one)
    return out;
  };
  // Past the rest of a malformed link-value: up to the next comma outside quotes and <…>.
  const skipToNextValue = (): void => {
    while (i < text.length && text[i] !== ',') {
      if (text[i] === '"') readQuoted();
      else if (text[i] === '<') i = text.includes('>', i) ? text.indexOf('>', i) + 1 : text.length;
      else i += 1;
    }
  };

  while (i < text.length) {
    skip(/[\s,]/);
    if (i >= text.length) break;
    if (text[i] !== '<') {
      skipToNextValue();
      continue;
    }
    const end = text.indexOf('>', i + 1);
    if (end === -1) break;
    const target = text.slice(i + 1, end).trim();
    i = end + 1;
    const params: Record<string, string> = {};
    for (;;) {
      skip(/[ \t]/);
      if (text[i] !== ';') break;
      i += 1;
      skip(/[ \t]/);
      const nameStart = i;
      skip(/[^\s=;,"]/);
      const name = text.slice(nameStart, i).toLowerCase();
      skip(/[ \t]/);
      let paramValue = '';
      if (text[i] === '=') {
        i += 1;
        skip(/[ \t]/);
        if (text[i] === '"') paramValue = readQuoted();
        else {
          const valueStart = i;
          skip(/[^\s;,]/);
          paramValue = text.slice(valueStart, i);
        }
      }
      if (name !== '' && !(name in params)) params[name] = paramValue;
    }
    skip(/[ \t]/);
    const wellFormed = i >= text.length || text[i] === ',';
    if (!wellFormed) {
      skipToNextValue();
      continue;
    }
    const rel = (params.rel ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    links.push({ target, rel, params });
  }
  return links;
}
