/** The records a run staged, from its summary line's `counts.stage.records`; undefined when it got no summary that far. */
export function stagedRecords(summary: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const records = (summary?.counts as { stage?: { records?: unknown } } | undefined)?.stage?.records;
  return typeof records === 'number' ? records : undefined;
}
