import type { ColumnSpec } from '../column/column-type.ts';

/** A column spec as the `column.…()` call that builds it, for generated modules. */
export function columnSource(spec: ColumnSpec): string {
  const nullable = spec.nullable ? '{ nullable: true }' : '';
  switch (spec.type) {
    case 'decimal': return `column.decimal(${spec.precision}, ${spec.scale}${nullable ? `, ${nullable}` : ''})`;
    case 'text': return spec.maxLength === undefined ? `column.text(${nullable})` : `column.text({ ${spec.nullable ? 'nullable: true, ' : ''}maxLength: ${spec.maxLength} })`;
    default: return `column.${spec.type}(${nullable})`;
  }
}
