import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';

/** An OTLP attribute as the JSON encoding carries it (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). */
interface OtlpKeyValue {
  readonly key: string;
  readonly value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

/** Attributes as a plain object (int64 values, which the JSON encoding may send as strings, as numbers). */
function attributesOf(list: readonly OtlpKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue!;
  }
  return out;
}

/** A received span, decoded. */
export interface ReceivedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Record<string, string | number | boolean>;
  readonly status: { code?: number; message?: string };
  readonly resource: Record<string, string | number | boolean>;
}

/** A received metric data point, decoded: a sum's `value`, a histogram's `count` and `sum`. */
export interface ReceivedPoint {
  readonly metric: string;
  readonly unit: string;
  readonly attributes: Record<string, string | number | boolean>;
  readonly value?: number;
  readonly count?: number;
  readonly sum?: number;
}

/** One request the receiver was sent. */
export interface ReceivedRequest {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

/**
 * A real OTLP/HTTP receiver on a loopback port, as a collector's `otlphttp` receiver: it accepts
 * `POST /v1/traces` and `/v1/metrics`, answers 200 with an empty JSON object, and keeps every
 * request; the JSON-encoded ones (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) are decoded.
 */
export async function startOtlpReceiver(): Promise<{
  readonly endpoint: string;
  readonly requests: ReceivedRequest[];
  spans(): ReceivedSpan[];
  points(): ReceivedPoint[];
  close(): Promise<void>;
}> {
  const requests: ReceivedRequest[] = [];
  const read = async (request: IncomingMessage): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const server = createServer((request, response) => {
    void read(request).then((body) => {
      requests.push({ path: request.url ?? '', contentType: request.headers['content-type'] ?? '', body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const json = (path: string): any[] => requests.filter((r) => r.path === path && r.contentType.startsWith('application/json')).map((r) => JSON.parse(r.body.toString('utf8')));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      json('/v1/traces').flatMap((payload) =>
        (payload.resourceSpans ?? []).flatMap((rs: any) =>
          (rs.scopeSpans ?? []).flatMap((ss: any) =>
            (ss.spans ?? []).map(
              (span: any): ReceivedSpan => ({
                name: span.name,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                startMs: Number(BigInt(span.startTimeUnixNano) / 1_000_000n),
                endMs: Number(BigInt(span.endTimeUnixNano) / 1_000_000n),
                attributes: attributesOf(span.attributes),
                status: span.status ?? {},
                resource: attributesOf(rs.resource?.attributes),
              }),
            ),
          ),
        ),
      ),
    points: () =>
      json('/v1/metrics').flatMap((payload) =>
        (payload.resourceMetrics ?? []).flatMap((rm: any) =>
          (rm.scopeMetrics ?? []).flatMap((sm: any) =>
            (sm.metrics ?? []).flatMap((metric: any) => {
              const sum = (metric.sum?.dataPoints ?? []).map((p: any) => ({ attributes: attributesOf(p.attributes), value: Number(p.asInt ?? p.asDouble) }));
              const histogram = (metric.histogram?.dataPoints ?? []).map((p: any) => ({ attributes: attributesOf(p.attributes), count: Number(p.count), sum: p.sum }));
              return [...sum, ...histogram].map((point): ReceivedPoint => ({ metric: metric.name, unit: metric.unit, ...point }));
            }),
          ),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
