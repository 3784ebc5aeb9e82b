/** Quotes an identifier the standard way (`"name"`); `definePipeline` already validated it as snake_case. */
export function quoteAnsiIdentifier(name: string): string {
  return `"${name}"`;
}
