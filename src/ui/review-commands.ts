import type { LedgerItem } from '../ledger/ledger-item.ts';

/** A word the shell reads as written: letters, digits and `-_.,:/@=+%` are left bare, anything else is single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:/@=+%-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The commands that resolve an item in review or failed, as `idem review` prints them: for an
 * item failed transiently, rerun its run key (`runFlag`, such as `--date 2010-12-01`); otherwise,
 * once the destination is checked, `--mark-posted` (it is there) or `--retry` (it is not).
 * `--destination` is added when the pipeline has several destinations.
 */
export function reviewCommands(item: LedgerItem, args: { runFlag: string; severalDestinations: boolean }): { label: string; command: string }[] {
  const pipeline = shellWord(item.jobName);
  const rerun = { label: 'then rerun its run key', command: `idem run ${pipeline} ${args.runFlag}` };
  if (item.status === 'failed' && item.failureKind === 'transient') return [{ label: 'once the destination is back', command: rerun.command }];
  const destination = args.severalDestinations ? ` --destination ${shellWord(item.destination)}` : '';
  const reference = shellWord(item.sourceReference);
  return [
    { label: 'it is at the destination', command: `idem review ${pipeline} --mark-posted ${reference} --remote-ref <its id there>${destination}` },
    { label: 'it is not there', command: `idem review ${pipeline} --retry ${reference}${destination}` },
    rerun,
  ];
}
