/** Quotes an identifier the SQL Server way (`[name]`, a `]` inside doubled); names are validated snake_case anyway. */
export function quoteMssqlIdentifier(name: string): string {
  return `[${name.replaceAll(']', ']]')}]`;
}
