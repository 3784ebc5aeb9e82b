// idem's test kit, the public surface `idem/testing`: a pipeline run against a fixture on a
// throwaway database, its destinations and HTTP source described as msw request handlers served
// on loopback ports, and what it wrote and sent read back for assertions.
// docs/writing-a-pipeline.md ("Test it") shows it in use.
export { startPipelineTest } from './pipeline-test.ts';
export type { PipelineTest, PipelineTestOptions, PipelineTestRun } from './pipeline-test.ts';
export { serveHandlers } from './serve-handlers.ts';
export type { HandlerServer, RecordedRequest } from './serve-handlers.ts';
export { recordingApi } from './recording-api.ts';
export type { LedgerItem, LedgerStatus } from '../ledger/ledger-item.ts';
