import type { ColumnSpec } from './column-type.ts';

/**
 * The `column.…(…)` builder call that declares `spec`, as TypeScript source: what a pipeline
 * author writes, and what `idem migrate --make` writes into a migration. For example
 * `column.decimal(10, 2, { nullable: true })`, `column.text({ maxLength: 20 })`.
 */
export function columnSpecSource(spec: ColumnSpec): string {
  const options: string[] = [];
  if (spec.type === 'text' && spec.maxLength !== undefined) options.push(`maxLength: ${spec.maxLength}`);
  if (spec.nullable) options.push('nullable: true');
  const args: string[] = spec.type === 'decimal' ? [String(spec.precision), String(spec.scale)] : [];
  if (options.length > 0) args.push(`{ ${options.join(', ')} }`);
  return `column.${spec.type}(${args.join(', ')})`;
}
