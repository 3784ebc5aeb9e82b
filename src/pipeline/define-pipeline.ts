import { IANAZone } from 'luxon';
import { POST_STRATEGIES } from '../destination/post-strategy.ts';
import { httpSettingsProblem } from '../http/http-settings.ts';
import type { PipelineDefinition } from './pipeline-definition.ts';

const PIPELINE_NAME = /^[a-z][a-z0-9-]{0,62}$/;
const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const RESERVED_COLUMNS = new Set([
  'id', 'seq', 'run_key', 'source_system', 'source_reference', 'source_line', 'row_hash',
  'first_run_key', 'last_changed_run_key', 'created_at', 'updated_at',
]);

/**
 * Declares a pipeline. Validates names, the time zone, the columns and the destinations (their
 * `http` settings by the same rules as `IDEM_DESTINATIONS`) at import time, so a mistake fails
 * `idem pipelines` with the field and the rule instead of failing a run later.
 *
 * @example
 * export const pipeline = definePipeline({
 *   name: 'online-retail-invoices', sourceSystem: 'online-retail', timeZone: 'Europe/London', …
 * });
 * @throws TypeError naming the field and the rule it breaks.
 */
export function definePipeline<Row>(
  definition: Omit<PipelineDefinition<Row>, 'duplicateKeys' | 'description' | 'destinations'> &
    Partial<Pick<PipelineDefinition<Row>, 'duplicateKeys' | 'description' | 'destinations'>>,
): PipelineDefinition<Row> {
  const check = (ok: boolean, field: string, rule: string, value: unknown): void => {
    if (!ok) throw new TypeError(`pipeline ${field} ${rule} (got ${JSON.stringify(value)})`);
  };
  check(PIPELINE_NAME.test(definition.name), 'name', 'must be kebab-case, at most 63 characters', definition.name);
  check(definition.sourceSystem.length > 0, 'sourceSystem', 'must not be empty', definition.sourceSystem);
  check(IANAZone.isValidZone(definition.timeZone), 'timeZone', 'must be an IANA time zone', definition.timeZone);
  for (const key of ['staging', 'target'] as const) {
    const table = definition.tables[key];
    check(SQL_IDENTIFIER.test(table), `tables.${key}`, 'must be a snake_case SQL identifier', table);
  }
  const names = Object.keys(definition.columns);
  check(names.length > 0, 'columns', 'must declare at least one business column', names);
  for (const name of names) {
    check(SQL_IDENTIFIER.test(name), `columns.${name}`, 'must be a snake_case SQL identifier', name);
    check(!RESERVED_COLUMNS.has(name), `columns.${name}`, 'is a framework column name', name);
    const spec = definition.columns[name]!;
    if (spec.type === 'decimal') {
      const { precision = 0, scale = -1 } = spec;
      check(Number.isInteger(precision) && precision >= 1 && precision <= 38, `columns.${name}.precision`, 'must be 1..38', precision);
      check(Number.isInteger(scale) && scale >= 0 && scale <= precision, `columns.${name}.scale`, 'must be 0..precision', scale);
    }
  }
  const destinations = definition.destinations ?? [];
  for (const [i, destination] of destinations.entries()) {
    check(PIPELINE_NAME.test(destination.name), `destinations[${i}].name`, 'must be kebab-case, at most 63 characters', destination.name);
    check(POST_STRATEGIES.includes(destination.strategy), `destinations[${i}].strategy`, `must be one of ${POST_STRATEGIES.join(', ')}`, destination.strategy);
    check(destination.strategy !== 'check-before-create' || destination.lookup !== undefined, `destinations[${i}].lookup`, 'is required by check-before-create', undefined);
    const { settleDelayMs, notApplied } = destination;
    check(settleDelayMs === undefined || (Number.isInteger(settleDelayMs) && settleDelayMs >= 0), `destinations[${i}].settleDelayMs`, 'must be an integer ≥ 0 (ms)', settleDelayMs);
    check(notApplied === undefined || typeof notApplied === 'function', `destinations[${i}].notApplied`, 'must be a function', typeof notApplied);
    const httpProblem = httpSettingsProblem(destination.http ?? {});
    if (httpProblem !== undefined) throw new TypeError(`pipeline destinations[${i}].${httpProblem}`);
  }
  check(new Set(destinations.map((d) => d.name)).size === destinations.length, 'destinations', 'must have unique names', destinations.map((d) => d.name));
  return Object.freeze({ description: '', duplicateKeys: 'error' as const, ...definition, destinations });
}
