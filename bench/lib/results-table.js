// The one table every figure goes into: figure | idem | baseline | ratio | target | verdict.

/** Formats seconds as "12.34 s". */
export const fmtS = (seconds) => `${seconds.toFixed(2)} s`;
/** Formats KiB as "123 MB" (MiB). */
export const fmtMb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
/** Formats a ratio as "1.23×". */
export const fmtX = (ratio) => `${ratio.toFixed(2)}×`;
/** "met" or "MISSED"; "–" when there is no target. */
export const verdict = (ok) => (ok === undefined ? '–' : ok ? 'met' : 'MISSED');

/**
 * One table row.
 * @param {{ figure: string, idem: string, baseline: string, ratio: string, target: string, ok?: boolean }} row
 */
export function tableRow({ figure, idem, baseline, ratio, target, ok }) {
  return { figure, idem, baseline, ratio, target, verdict: verdict(ok) };
}

const COLUMNS = ['figure', 'idem', 'baseline', 'ratio', 'target', 'verdict'];

/** The rows as a Markdown table (pipes in cells escaped). */
export function formatTable(rows) {
  const cell = (v) => String(v ?? '').replaceAll('|', '\\|');
  return [
    `| ${COLUMNS.join(' | ')} |`,
    `|${COLUMNS.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${COLUMNS.map((c) => cell(r[c])).join(' | ')} |`),
  ].join('\n');
}
