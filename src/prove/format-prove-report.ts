import { formatTable } from '../text/format-table.ts';
import type { ProveCheck } from './prove-check.ts';

/** The `idem prove` table (check | result | counts) and a closing line saying whether it passed. */
export function formatProveReport(checks: readonly ProveCheck[]): string {
  const failed = checks.filter((c) => c.result === 'fail').length;
  const table = formatTable(['check', 'result', 'counts'], checks.map((c) => [c.name, c.result, c.counts]));
  const verdict = failed === 0 ? `passed: ${checks.filter((c) => c.result === 'pass').length} checks` : `FAILED: ${failed} of ${checks.length} checks`;
  return `${table}\n${verdict}\n`;
}
