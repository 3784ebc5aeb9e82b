/** The rows of the table `idem prove` prints: check → [result, counts]. */
export function proveTable(stdout: string): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>();
  for (const line of stdout.split('\n')) {
    const match = /^(.+?) {2,}(pass|fail|skip) {2,}(.*)$/.exec(line);
    if (match) rows.set(match[1]!, [match[2]!, match[3]!]);
  }
  return rows;
}
