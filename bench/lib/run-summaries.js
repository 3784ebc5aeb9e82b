// Reads idem's pino JSON log: every run ends with one `stage: "summary"` line (docs/operating.md).

/** Every summary entry in a command's output, in order (one per run; a backfill has one per date). */
export function runSummaries(output) {
  const summaries = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"summary"')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.stage === 'summary') summaries.push(entry);
    } catch { /* not a log line */ }
  }
  return summaries;
}

/**
 * The only summary of a single run.
 * @throws Error when the output holds none, or the outcome is not `expectedOutcome`.
 */
export function singleSummary(output, expectedOutcome, what) {
  const summary = runSummaries(output).at(-1);
  if (summary?.outcome !== expectedOutcome) {
    throw new Error(`${what}: expected outcome ${expectedOutcome}, got ${summary?.outcome ?? 'no summary line'}${summary?.err ? ` (${summary.err.message})` : ''}`);
  }
  return summary;
}

/**
 * The stage split of one summary, in ms: `stageMs` (extract + stage: they stream together),
 * `upsertMs`, `postMs` (all destinations), and `posted` / `sent` counts.
 */
export function stageSplit(summary) {
  const post = Object.values(summary.counts?.post ?? {});
  return {
    stageMs: summary.counts?.stage?.ms ?? 0,
    upsertMs: summary.counts?.upsert?.ms ?? 0,
    postMs: post.reduce((total, c) => total + (c.ms ?? 0), 0),
    posted: post.reduce((total, c) => total + (c.posted ?? 0), 0),
    sent: post.reduce((total, c) => total + (c.sent ?? 0), 0),
    durationMs: summary.durationMs ?? 0,
  };
}
