import { UsageError } from '../../errors/usage-error.ts';
import { findDuplicateKeys, type DuplicateKeyReport } from '../../migration/find-duplicate-keys.ts';
import { removeDuplicateKeys, type DuplicateRemoval, type KeepRule } from '../../migration/remove-duplicate-keys.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { escapeControlCharacters } from '../../text/escape-control-characters.ts';
import { withSession } from '../session.ts';
import { commandIo } from '../../command-io/command-io.ts';

/** Flags of `idem duplicates`. */
export interface DuplicatesOptions {
  /** `--key a,b`: the columns that should be unique together. */
  readonly key: string;
  readonly keep?: string;
  readonly by?: string;
  readonly apply?: boolean;
  readonly json?: boolean;
  /** The most groups to list. */
  readonly limit: number;
}

const KEEP_RULES: readonly KeepRule[] = ['newest', 'oldest'];

/** A row as one line: `column=value`, values as JSON, control characters escaped. */
function rowText(row: Readonly<Record<string, unknown>>): string {
  return escapeControlCharacters(Object.entries(row).map(([name, value]) => `${name}=${JSON.stringify(value instanceof Date ? value.toISOString() : value) ?? 'null'}`).join(' '));
}

function reportText(report: DuplicateKeyReport): string {
  const key = report.key.join(', ');
  if (report.groupCount === 0) return `table ${report.table}: no two rows share (${key})\n`;
  let text = `table ${report.table}: ${report.groupCount} key${report.groupCount === 1 ? '' : 's'} of (${key}) held by more than one row, ${report.surplusRows} row${report.surplusRows === 1 ? '' : 's'} too many\n`;
  for (const group of report.groups) {
    text += `\n${rowText(group.key)}: ${group.count} rows\n`;
    for (const row of group.rows) text += `  ${rowText(row)}\n`;
    if (group.rows.length < group.count) text += `  … and ${group.count - group.rows.length} more\n`;
  }
  if (report.groups.length < report.groupCount) text += `\n… and ${report.groupCount - report.groups.length} more keys (--limit shows more)\n`;
  return `${text}\nto keep one row per key: idem duplicates ${report.table} --key ${report.key.join(',')} --keep newest --by COLUMN (prints the plan; --apply carries it out)\n`;
}

function removalText(removal: DuplicateRemoval): string {
  const key = removal.key.join(', ');
  if (removal.groupCount === 0 && !removal.applied) return `table ${removal.table}: no two rows share (${key}); nothing to remove\n`;
  let text = '';
  for (const group of removal.groups) {
    text += `${rowText(group.key)}: keep ${rowText(group.kept)}\n`;
    for (const row of group.removed) text += `  remove ${rowText(row)}\n`;
  }
  if (removal.groups.length < removal.groupCount) text += `… and ${removal.groupCount - removal.groups.length} more keys (--limit shows more)\n`;
  const rule = `the row with the ${removal.keep === 'newest' ? 'greatest' : 'least'} ${removal.by} (ties: the lowest ${removal.primaryKey}; NULL counts as oldest)`;
  if (!removal.applied) {
    return `${text}plan: ${removal.removeCount} row${removal.removeCount === 1 ? '' : 's'} of ${removal.table} would go, ${removal.groupCount} key${removal.groupCount === 1 ? '' : 's'} keep ${rule}; ` +
      `--apply copies them to ${removal.copyTable}, deletes them and creates the unique index ${removal.uniqueIndex} on (${key})\n`;
  }
  const index = removal.indexCreated ? `created the unique index ${removal.uniqueIndex} on (${key})` : `the unique index ${removal.uniqueIndex} on (${key}) exists already`;
  return `${text}removed ${removal.removeCount} row${removal.removeCount === 1 ? '' : 's'} of ${removal.table} (copied first to ${removal.copyTable}); ${index}\n`;
}

/**
 * `idem duplicates TABLE --key COL[,COL…] [--keep newest|oldest --by COLUMN [--apply]] [--json]
 * [--limit N]`: lists the keys more than one row of an existing table holds (exit 0 when there are
 * none, 3 when there are some, so a CI step can check), or plans keeping one row per key, or with
 * `--apply` carries the plan out (see `removeDuplicateKeys`), then exits 0. Works on any table of
 * DATABASE_URL, migrated by idem or not.
 * @throws UsageError for a bad flag, a table or column that does not exist.
 */
export async function duplicatesCommand(table: string, options: DuplicatesOptions): Promise<Outcome> {
  const key = options.key.split(',').map((name) => name.trim());
  if (key.some((name) => name === '')) throw new UsageError(`--key must be column names separated by commas (got "${options.key}")`);
  if (options.keep !== undefined && !KEEP_RULES.includes(options.keep as KeepRule)) throw new UsageError(`--keep must be newest or oldest (got "${options.keep}")`);
  if ((options.keep === undefined) !== (options.by === undefined)) throw new UsageError('--keep and --by go together: --keep newest --by updated_at');
  if (options.apply && options.keep === undefined) throw new UsageError('--apply needs --keep newest|oldest --by COLUMN: which row of each key stays');
  return withSession<Outcome>(
    async ({ db, logger }) => {
      if (options.keep === undefined) {
        const report = await findDuplicateKeys(db, { table, key, maxGroups: options.limit });
        commandIo().stdout.write(options.json ? `${JSON.stringify(report)}\n` : reportText(report));
        return report.groupCount === 0 ? 'completed' : 'duplicates';
      }
      const removal = await removeDuplicateKeys(db, { table, key, keep: options.keep as KeepRule, by: options.by!, apply: options.apply ?? false, maxGroups: options.limit });
      if (removal.applied) logger.info({ table, key, removed: removal.removeCount, copyTable: removal.copyTable, uniqueIndex: removal.uniqueIndex, indexCreated: removal.indexCreated }, `removed ${removal.removeCount} duplicate rows of ${table}`);
      commandIo().stdout.write(options.json ? `${JSON.stringify(removal)}\n` : removalText(removal));
      return removal.applied || removal.groupCount === 0 ? 'completed' : 'duplicates';
    },
    { migrated: false, existing: true },
  );
}
