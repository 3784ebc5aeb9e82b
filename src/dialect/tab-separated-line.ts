/** The characters a tab-separated load format reads specially, each with its escape. */
export interface TabSeparatedEscapes {
  readonly escapes: Readonly<Record<string, string>>;
  /** Whether a value holds one of them: most values do not, and skip the replace. */
  readonly special: RegExp;
  readonly specials: RegExp;
}

/** {@link TabSeparatedEscapes} for a table of single characters and their escapes. */
export function tabSeparatedEscapes(escapes: Readonly<Record<string, string>>): TabSeparatedEscapes {
  const characters = `[${Object.keys(escapes).map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}]`;
  return { escapes, special: new RegExp(characters), specials: new RegExp(characters, 'g') };
}

/**
 * One row as a line of a tab-separated load format (PostgreSQL's `COPY` text format, MySQL's
 * `LOAD DATA … FIELDS TERMINATED BY '\t' ESCAPED BY '\\'`): columns separated by a tab, NULL
 * (and undefined) written `\N`, every character of `format` replaced by its escape and every
 * other character itself, so an empty string stays distinct from NULL and a JSON document goes
 * through unquoted. Ends with `\n`.
 */
export function tabSeparatedLine(values: readonly unknown[], format: TabSeparatedEscapes): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += '\t';
    const value = values[i];
    if (value === null || value === undefined) {
      line += '\\N';
      continue;
    }
    const text = String(value);
    line += format.special.test(text) ? text.replace(format.specials, (c) => format.escapes[c]!) : text;
  }
  return `${line}\n`;
}
