// The public surface of idem: pipelines and migrations import from 'idem' and nothing deeper.
export { definePipeline } from './pipeline/define-pipeline.ts';
export { compositeSourceReference } from './pipeline/composite-source-reference.ts';
export type { PipelineDefinition, DuplicateKeyRule } from './pipeline/pipeline-definition.ts';
export type { PipelineRecord } from './pipeline/pipeline-record.ts';
export type { DerivedScope, DerivedTableDefinition } from './pipeline/derived-table-definition.ts';
export type { ChildTableDefinition } from './pipeline/child-table-definition.ts';
export { column } from './column/column-type.ts';
export { canonical } from './column/canonical.ts';
export { canonicalField } from './column/canonical-field.ts';
export type { ColumnSpec, ColumnSpecs, ColumnType } from './column/column-type.ts';
export type { ColumnValue, ColumnValues, TypedColumnSpec } from './column/column-type.ts';
export { csvSource } from './source/csv/csv-source.ts';
export type { CsvSource } from './source/csv/csv-source.ts';
export { httpJsonSource } from './source/http-json/http-json-source.ts';
export type { HttpJsonSource } from './source/http-json/http-json-source.ts';
export { sqlSource } from './source/sql/sql-source.ts';
export type { SqlSource, SqlSourceQuery } from './source/sql/sql-source.ts';
export type { SqlRunRange } from './source/sql/sql-run-range.ts';
export type { HttpJsonIncremental } from './source/http-json/http-json-incremental.ts';
export type { HttpJsonPaging, CursorPaging, PageNumberPaging, LinkHeaderPaging } from './source/http-json/http-json-paging.ts';
export type { SourceRow } from './source/source-row.ts';
export type { SourceKind, SourceDeclaration, SourceContext, ReadSourceOptions, IncrementalCursor, ChangedCopyRequest, ChangedSource } from './source/source-kind.ts';
export type { SourceDefinition, OwnKindSource } from './source/source-definition.ts';
export type { QuarantinedRow } from './source/quarantined-row.ts';
export type { RunKey } from './runs/run-key.ts';
export { SOURCE_KINDS } from './source/source-kinds.ts';
export { groupRows } from './source/group-rows.ts';
export type { GroupRowsOptions, RowGroup } from './source/group-rows.ts';
export type { ColumnChanges, MigrationContext, PipelineTablesSpec, DerivedTableSpec, ScopeIndexSpec, ChildTableSpec } from './migration/migration-context.ts';
export type { DestinationDefinition, DestinationLookup, DestinationRequest, PostedRow } from './destination/destination-definition.ts';
export type { PostStrategy } from './destination/post-strategy.ts';
export type { RawJson } from './http/raw-json.ts';
export type { HttpSettingsInput } from './http/http-settings.ts';
export {
  IdemError, UsageError, PipelineError, LockHeldError, LockLostError, SourceError, DuplicateKeyError, NotMigratedError, QuarantineError,
} from './errors/index.ts';
