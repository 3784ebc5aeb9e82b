/** `value` as a single-quoted TypeScript (JavaScript) string literal, for generated source: `'it\'s'`. */
export function singleQuoted(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
