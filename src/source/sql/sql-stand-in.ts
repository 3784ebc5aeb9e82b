import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../db/open-database.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { loadStandInHandlers, standInModulePath } from '../../project/load-stand-in-handlers.ts';
import type { RunKey } from '../../runs/run-key.ts';
import type { SourceContext, SourceStandIn } from '../source-kind.ts';
import { businessDateInstants } from './sql-run-range.ts';
import type { SqlSource } from './sql-source.ts';

/**
 * A SQL source's stand-in for one `idem prove` case: an empty SQLite database in a temporary
 * directory, filled by the project's `sourceDatabase(db, range)` (exported by
 * `stand-ins/<pipeline>.ts`), and named in `IDEM_SOURCES` in place of the real database, which
 * a proof never reads: its kills, reruns and overlaps run against rows the project described.
 * The query is knex's, so it runs on SQLite as on the real dialect (instants there are ISO 8601
 * text in UTC with milliseconds, as the range's bounds are bound).
 * @throws UsageError when the project exports no `sourceDatabase`, or it fails.
 */
export async function createSqlStandIn(source: SqlSource<unknown>, runKey: RunKey, context: SourceContext): Promise<SourceStandIn> {
  const relative = standInModulePath(context.pipelineName);
  const described = await loadStandInHandlers(context.config.projectDir, context.pipelineName);
  if (described?.sourceDatabase === undefined) {
    throw new UsageError(
      `idem prove never reads the real source database "${source.database}": describe its stand-in in ${relative}, ` +
        'export async function sourceDatabase(db: Knex, range) { … } creating the tables the query reads and the rows of range (an empty SQLite database)',
    );
  }
  const directory = mkdtempSync(path.join(tmpdir(), 'idem-prove-source-'));
  const url = `sqlite:${path.join(directory, `${source.database}.sqlite3`)}`;
  const db = await openDatabase({ databaseUrl: url, projectDir: context.config.projectDir });
  try {
    const businessDate = runKey.kind === 'date' ? runKey.businessDate : new Date().toISOString().slice(0, 10);
    await described.sourceDatabase(db.knex, { businessDate, ...businessDateInstants(businessDate, context.timeZone) });
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw new UsageError(`${relative}: sourceDatabase() failed: ${(error as Error).message}`, { cause: error });
  } finally {
    await db.close();
  }
  return {
    sources: { [source.database]: { url } },
    close: async () => rmSync(directory, { recursive: true, force: true }),
  };
}
