import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TELEMETRY_FLUSH_MS } from '../../src/telemetry/start-telemetry.ts';
import { closedPort } from '../helpers/closed-port.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { fixtureLines } from '../helpers/fixtures.ts';
import { startOtlpReceiver, type ReceivedPoint, type ReceivedSpan } from '../helpers/otlp-receiver.ts';
import { readInvoices } from '../helpers/read-target.ts';
import { PROJECT_DIR, runCli, startCli, summaryOf } from '../helpers/run-cli.ts';
import { DESTINATION, destinationsEnv } from '../helpers/sandbox.ts';

// Telemetry reads no SQL of its own: the run's spans and metrics come from what every dialect's run
// reports alike, so SQLite is enough here (the stages themselves are tested on every dialect).
const PIPELINE = 'online-retail-invoices';
const DATE = '2010-12-01';
const SOURCE_ROWS = fixtureLines(DATE).length - 1;
// Child processes (IDEM_TEST_CHILD): the OpenTelemetry SDK reads OTEL_* from its process's
// environment, and the tests look at which modules a process loads.
const cli = (args: string[], env: Record<string, string>) => runCli(args, { ...env, IDEM_TEST_CHILD: '1' });
const run = (env: Record<string, string>, ...extra: string[]) => cli(['run', PIPELINE, '--date', DATE, ...extra], env);

/** The one point of `metric` whose attributes include `attributes`. */
function pointOf(points: readonly ReceivedPoint[], metric: string, attributes: Record<string, unknown> = {}): ReceivedPoint {
  const found = points.filter((p) => p.metric === metric && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
  expect(found, `${metric} ${JSON.stringify(attributes)} in ${JSON.stringify(points.map((p) => [p.metric, p.attributes]))}`).toHaveLength(1);
  return found[0]!;
}

const byName = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan => {
  const found = spans.filter((s) => s.name === name);
  expect(found, `one span "${name}" among ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0]!;
};

describe('OpenTelemetry out of the CLI (OTLP/HTTP to a receiver on loopback)', () => {
  let project: ExampleProject;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let otel: Record<string, string>;

  beforeEach(async (context) => {
    project = await setUpExampleProject('sqlite', context.task.name);
    receiver = await startOtlpReceiver();
    otel = {
      ...project.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'nightly-etl',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    };
  });

  afterEach(async () => {
    await receiver?.close();
    await project?.close();
  });

  it('exports one trace per run with a span per stage and destination pass, and the run’s metrics', async () => {
    const result = await run(otel);
    expect([result.code, summaryOf(result).outcome]).toEqual([0, 'completed']);
    const counts = summaryOf(result).counts;
    const invoices = (await readInvoices(project.db)).length;
    const requests = project.sandbox.state.stats().requests.length;
    expect(invoices).toBeGreaterThan(100);

    const spans = receiver.spans();
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const root = byName(spans, `run ${PIPELINE}`);
    expect(root.parentSpanId).toBeUndefined();
    expect(root.resource).toMatchObject({ 'service.name': 'nightly-etl', 'deployment.environment.name': 'test', 'service.version': expect.any(String) });
    expect(root.attributes).toMatchObject({
      'idem.pipeline': PIPELINE,
      'idem.run_key': DATE,
      'idem.attempt': 1,
      'idem.outcome': 'completed',
      'process.exit.code': 0,
      'idem.extract.rows': SOURCE_ROWS,
      'idem.upsert.inserted': invoices,
    });
    const common = { 'idem.pipeline': PIPELINE, 'idem.run_key': DATE, 'idem.attempt': 1 };
    const extract = byName(spans, 'extract');
    expect(extract.attributes).toMatchObject({ ...common, 'idem.extract.rows': SOURCE_ROWS, 'idem.extract.quarantined': counts.extract.quarantined });
    expect(byName(spans, 'stage').attributes).toMatchObject({ ...common, 'idem.stage.staged': invoices, 'idem.stage.duplicates_removed': 0 });
    const upsert = byName(spans, 'upsert');
    expect(upsert.attributes).toMatchObject({ ...common, 'idem.upsert.inserted': invoices, 'idem.upsert.updated': 0, 'idem.upsert.unchanged': 0 });
    const post = byName(spans, 'post');
    const pass = byName(spans, `post ${DESTINATION}`);
    expect(pass.attributes).toMatchObject({ ...common, 'idem.destination': DESTINATION, 'idem.strategy': 'idempotency-key', 'idem.post.posted': invoices, 'idem.post.failed': 0 });
    expect(byName(spans, 'app lock').attributes).toMatchObject({ 'idem.lock.acquired': true });
    // The tree: every stage under the run, the destination pass under the post stage, all in run order.
    for (const span of [extract, upsert, post, byName(spans, 'stage'), byName(spans, 'app lock')]) expect(span.parentSpanId).toBe(root.spanId);
    expect(pass.parentSpanId).toBe(post.spanId);
    expect(extract.startMs).toBeLessThanOrEqual(extract.endMs);
    expect(extract.endMs).toBeLessThanOrEqual(upsert.startMs);
    expect(upsert.endMs).toBeLessThanOrEqual(pass.startMs);
    expect(root.startMs).toBeLessThanOrEqual(extract.startMs);
    expect(root.endMs).toBeGreaterThanOrEqual(post.endMs);

    const points = receiver.points();
    const pipeline = { 'idem.pipeline': PIPELINE };
    expect(pointOf(points, 'idem.rows.read', pipeline).value).toBe(SOURCE_ROWS);
    expect(pointOf(points, 'idem.rows.quarantined', pipeline).value).toBe(counts.extract.quarantined);
    expect(pointOf(points, 'idem.rows.inserted', pipeline).value).toBe(invoices);
    expect(pointOf(points, 'idem.rows.updated', pipeline).value).toBe(0);
    expect(pointOf(points, 'idem.rows.unchanged', pipeline).value).toBe(0);
    expect(pointOf(points, 'idem.posts', { ...pipeline, 'idem.destination': DESTINATION, 'idem.post.outcome': 'posted' }).value).toBe(project.sandbox.state.records().length);
    expect(pointOf(points, 'idem.posts', { 'idem.post.outcome': 'failed' }).value).toBe(0);
    expect(pointOf(points, 'idem.runs', { ...pipeline, 'idem.outcome': 'completed', 'process.exit.code': 0 }).value).toBe(1);
    expect(pointOf(points, 'idem.run.duration', { 'idem.outcome': 'completed' })).toMatchObject({ unit: 's', count: 1 });
    expect(pointOf(points, 'idem.lock.wait.duration', { ...pipeline, 'idem.lock.acquired': true })).toMatchObject({ unit: 's', count: 1 });
    // Every request the sandbox answered, and nothing else, is in the latency histogram, under the destination's name.
    const latency = points.filter((p) => p.metric === 'idem.destination.request.duration');
    expect(latency.every((p) => p.unit === 's' && p.attributes['idem.destination'] === DESTINATION && p.attributes['http.request.method'] === 'POST')).toBe(true);
    expect(latency.reduce((sum, p) => sum + p.count!, 0)).toBe(requests);
    expect(pointOf(points, 'idem.destination.request.duration', { 'http.response.status_code': 201 }).sum).toBeGreaterThan(0);
  });

  it('records a no-op rerun, and a failed attempt with its error, exit code and attempt number', async () => {
    expect((await run(project.env)).code).toBe(0);
    const noop = await run(otel);
    expect([noop.code, summaryOf(noop).outcome]).toEqual([0, 'noop']);
    const failed = await run({ ...otel, IDEM_FAILPOINTS: 'after-upsert=fail' }, '--force');
    expect([failed.code, summaryOf(failed).outcome]).toEqual([1, 'failed']);

    const roots = receiver.spans().filter((s) => s.name === `run ${PIPELINE}`);
    expect(roots.map((s) => [s.attributes['idem.outcome'], s.attributes['process.exit.code'], s.attributes['idem.attempt']])).toEqual([
      ['noop', 0, undefined],
      ['failed', 1, 2],
    ]);
    expect(roots[1]!.status).toMatchObject({ code: 2, message: 'failpoint after-upsert fired' });
    // The failed attempt got as far as its upsert: those spans are in its trace, no post stage.
    const failedTrace = receiver.spans().filter((s) => s.traceId === roots[1]!.traceId).map((s) => s.name);
    expect(failedTrace.sort()).toEqual(['app lock', 'extract', `run ${PIPELINE}`, 'stage', 'upsert']);
    const points = receiver.points();
    expect(pointOf(points, 'idem.runs', { 'idem.outcome': 'noop', 'process.exit.code': 0 }).value).toBe(1);
    expect(pointOf(points, 'idem.runs', { 'idem.outcome': 'failed', 'process.exit.code': 1 }).value).toBe(1);
    expect(pointOf(points, 'idem.rows.read', { 'idem.pipeline': PIPELINE }).value).toBe(SOURCE_ROWS);
  });

  it('exports one trace per idem work session, with its destination passes, the posts it settled and its request latency', async () => {
    // The run exports nothing here: every span and point the receiver gets is the worker's. 100 ms a
    // request at concurrency 2: the worker (it looks every 50 ms) joins long before the run ends.
    project.sandbox.configure({ latencyMs: 100 });
    const { OTEL_EXPORTER_OTLP_ENDPOINT: _endpoint, ...withoutOtel } = otel;
    const slow = { IDEM_DESTINATIONS: destinationsEnv(project.sandbox, { http: { concurrency: 2 } }) };
    const worker = startCli(['work', PIPELINE, '--run-key', DATE, '--poll-ms', '50', '--wait-ms', '60000'], { ...otel, ...slow });
    const ran = await run({ ...withoutOtel, ...slow });
    const worked = await worker.done;
    expect([ran.code, worked.code], worked.stderr).toEqual([0, 0]);
    const summary = summaryOf(worked);
    const share = summary.counts.post[DESTINATION];
    expect(share.posted).toBeGreaterThan(0);
    expect(share.posted).toBeLessThan(project.sandbox.state.records().length);

    const spans = receiver.spans();
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const root = byName(spans, `work ${PIPELINE}`);
    expect(root.parentSpanId).toBeUndefined();
    expect(root.resource).toMatchObject({ 'service.name': 'nightly-etl' });
    expect(root.attributes).toMatchObject({ 'idem.pipeline': PIPELINE, 'idem.run_key': DATE, 'idem.attempt': 1, 'idem.worker': summary.worker, 'idem.outcome': 'completed', 'process.exit.code': 0 });
    const post = byName(spans, 'post');
    expect(post.parentSpanId).toBe(root.spanId);
    const passes = spans.filter((s) => s.name === `post ${DESTINATION}`);
    expect(passes.length).toBeGreaterThan(0);
    for (const pass of passes) {
      expect(pass.parentSpanId).toBe(post.spanId);
      expect(pass.attributes).toMatchObject({ 'idem.pipeline': PIPELINE, 'idem.run_key': DATE, 'idem.attempt': 1, 'idem.destination': DESTINATION, 'idem.strategy': 'idempotency-key' });
    }
    expect(passes.reduce((sum, p) => sum + Number(p.attributes['idem.post.posted']), 0)).toBe(share.posted);
    expect(spans.map((s) => s.name).sort()).toEqual(['post', ...passes.map(() => `post ${DESTINATION}`), `work ${PIPELINE}`].sort());

    const points = receiver.points();
    expect(pointOf(points, 'idem.posts', { 'idem.pipeline': PIPELINE, 'idem.destination': DESTINATION, 'idem.post.outcome': 'posted' }).value).toBe(share.posted);
    expect(pointOf(points, 'idem.posts', { 'idem.post.outcome': 'failed' }).value).toBe(0);
    // A worker counts no run: the run it helped counts itself.
    expect(points.filter((p) => p.metric === 'idem.runs' || p.metric === 'idem.run.duration')).toEqual([]);
    // Every request the worker sent, and only those, is in its latency histogram.
    const latency = points.filter((p) => p.metric === 'idem.destination.request.duration');
    expect(latency.every((p) => p.attributes['idem.destination'] === DESTINATION && p.attributes['http.response.status_code'] === 201)).toBe(true);
    expect(latency.reduce((sum, p) => sum + p.count!, 0)).toBe(share.attempts);
  });

  it('records an idem work that fails before it starts (database unreachable: exit 75) as a failed work span, no run', async () => {
    const result = await cli(['work', PIPELINE, '--run-key', DATE], { ...otel, DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/idem` });
    expect(result.code).toBe(75);
    const root = byName(receiver.spans(), `work ${PIPELINE}`);
    expect(root.attributes).toMatchObject({ 'idem.pipeline': PIPELINE, 'idem.outcome': 'unavailable', 'process.exit.code': 75 });
    expect(root.status.code).toBe(2);
    expect(receiver.points().filter((p) => p.metric === 'idem.runs')).toEqual([]);
  });

  it('records a command that fails before its run (database unreachable: exit 75)', async () => {
    const result = await run({ ...otel, DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/idem` });
    expect(result.code).toBe(75);
    const root = byName(receiver.spans(), `run ${PIPELINE}`);
    expect(root.attributes).toMatchObject({ 'idem.pipeline': PIPELINE, 'idem.outcome': 'unavailable', 'process.exit.code': 75 });
    expect(root.status.code).toBe(2);
    expect(pointOf(receiver.points(), 'idem.runs', { 'idem.outcome': 'unavailable', 'process.exit.code': 75 }).value).toBe(1);
  });

  it('sends protobuf by default (OTEL_EXPORTER_OTLP_PROTOCOL unset), to the signal-specific endpoints when they are set', async () => {
    const { OTEL_EXPORTER_OTLP_PROTOCOL: _json, OTEL_EXPORTER_OTLP_ENDPOINT: _endpoint, ...env } = otel;
    const result = await run({ ...env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/traces-here`, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${receiver.endpoint}/metrics-here` });
    expect(result.code).toBe(0);
    const seen = receiver.requests.map((r) => [r.path, r.contentType]);
    expect(seen).toContainEqual(['/traces-here', 'application/x-protobuf']);
    expect(seen).toContainEqual(['/metrics-here', 'application/x-protobuf']);
    expect(receiver.requests.every((r) => r.body.length > 0)).toBe(true);
  });
});

describe('telemetry never costs a run', () => {
  let project: ExampleProject;

  beforeEach(async (context) => {
    project = await setUpExampleProject('sqlite', context.task.name);
  });

  afterEach(() => project?.close());

  it('loads no OpenTelemetry module when no endpoint is set, and the SDK when one is', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-otel-'));
    const hook = { NODE_OPTIONS: `--import=${path.join(PROJECT_DIR, 'test', 'helpers', 'record-imports.mjs')}`, IDEM_TEST_IMPORTS_MATCH: '/@opentelemetry/' };
    const without = path.join(dir, 'without.txt');
    expect((await run({ ...project.env, ...hook, IDEM_TEST_IMPORTS_FILE: without })).code).toBe(0);
    expect(existsSync(without) ? readFileSync(without, 'utf8') : '').toBe('');
    // The check can fail: the same hook sees the SDK load when an endpoint is set.
    const withEndpoint = path.join(dir, 'with.txt');
    const port = await closedPort();
    expect((await run({ ...project.env, ...hook, IDEM_TEST_IMPORTS_FILE: withEndpoint, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, '--force')).code).toBe(0);
    expect(readFileSync(withEndpoint, 'utf8')).toMatch(/@opentelemetry\/sdk-trace/);
    // idem work too: it waits for a run key that is completed, and ends at once.
    const workWithout = path.join(dir, 'work-without.txt');
    expect((await cli(['work', PIPELINE, '--run-key', DATE], { ...project.env, ...hook, IDEM_TEST_IMPORTS_FILE: workWithout })).code).toBe(0);
    expect(existsSync(workWithout) ? readFileSync(workWithout, 'utf8') : '').toBe('');
    const workWith = path.join(dir, 'work-with.txt');
    expect((await cli(['work', PIPELINE, '--run-key', DATE], { ...project.env, ...hook, IDEM_TEST_IMPORTS_FILE: workWith, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` })).code).toBe(0);
    expect(readFileSync(workWith, 'utf8')).toMatch(/@opentelemetry\/sdk-trace/);
  });

  it("a no-op rerun loads neither OpenTelemetry nor node:http (whose ESM import loads Node's own bundled undici, 70 ms of CPU)", async () => {
    expect((await run(project.env)).code).toBe(0);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'idem-imports-')), 'imports.txt');
    // knex, which every run loads, is recorded too: the hook ran, so nothing else recorded means nothing else loaded.
    const noop = await run({ ...project.env, NODE_OPTIONS: `--import=${path.join(PROJECT_DIR, 'test', 'helpers', 'record-imports.mjs')}`, IDEM_TEST_IMPORTS_FILE: file, IDEM_TEST_IMPORTS_MATCH: '^node:https?$|/@opentelemetry/|/undici/|/knex/knex\\.' });
    expect([noop.code, summaryOf(noop).outcome]).toEqual([0, 'noop']);
    const recorded = readFileSync(file, 'utf8').trimEnd().split('\n');
    const knex = (url: string) => /\/knex\/knex\./.test(url);
    expect(recorded.some(knex)).toBe(true);
    expect(recorded.filter((url) => !knex(url))).toEqual([]);
  });

  it('a collector that is down loses the telemetry, not the run (nothing listens on the endpoint)', async () => {
    const result = await run({ ...project.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect([result.code, summaryOf(result).outcome]).toEqual([0, 'completed']);
    expect((await readInvoices(project.db)).length).toBe(summaryOf(result).counts.upsert.inserted);
  });

  it(`a collector that never answers costs the command its flush bound (${TELEMETRY_FLUSH_MS} ms) at most, and the run keeps its outcome`, async () => {
    // Accepts every connection and reads every request, never answers: without the bound the
    // exporters would wait for their own 10 s timeout, retrying.
    const silent: Server = createServer(() => undefined);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const { port } = silent.address() as { port: number };
      const result = await run({ ...project.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
      expect([result.code, summaryOf(result).outcome]).toEqual([0, 'completed']);
      expect(result.logs.filter((line) => line.telemetry === 'otlp').map((line) => line.msg)).toContainEqual(expect.stringMatching(`not all exported within ${TELEMETRY_FLUSH_MS} ms`));
      // idem work is bounded the same way.
      const work = await cli(['work', PIPELINE, '--run-key', DATE], { ...project.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
      expect([work.code, summaryOf(work).outcome]).toEqual([0, 'completed']);
      expect(work.logs.filter((line) => line.telemetry === 'otlp').map((line) => line.msg)).toContainEqual(expect.stringMatching(`not all exported within ${TELEMETRY_FLUSH_MS} ms`));
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
