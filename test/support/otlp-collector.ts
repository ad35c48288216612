// A small OTLP/HTTP trace collector on loopback for the tracing suite: it takes what the planner's
// exporter POSTs to /v1/traces, as OTLP/JSON (http/json) or protobuf (http/protobuf, decoded with
// the OTLP types @opentelemetry/otlp-transformer ships), and keeps every span, flattened, with its
// resource's service name and the protocol it came in.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the generated protobufjs root has no module entry of its own
const otlpTypes = require('@opentelemetry/otlp-transformer/build/src/generated/root') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType } } } } };
};
interface ProtoType {
  decode(b: Uint8Array): unknown;
  toObject(m: unknown, o: { longs: NumberConstructor; defaults: boolean }): unknown;
}
const ExportTraceServiceRequest = otlpTypes.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, string | number | boolean>;
  protocol: 'http/json' | 'http/protobuf';
}

export interface OtlpCollector {
  /** http://127.0.0.1:PORT: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: CollectedSpan[];
  /** Requests that were not OTLP trace exports (wrong path or content type, undecodable body). */
  rejected: string[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: Id; spanId: Id; parentSpanId?: Id; name: string; kind: number; attributes?: KeyValue[] }> }>;
  }>;
}

/** Hex in OTLP/JSON, bytes in protobuf. */
type Id = string | Uint8Array;
const hex = (id: Id | undefined): string => (id === undefined ? '' : typeof id === 'string' ? id : Buffer.from(id).toString('hex'));

/** The request, from either encoding; undefined for a content type that is neither. */
function decode(type: string, body: Buffer): ExportRequest | undefined {
  if (type.startsWith('application/json')) return JSON.parse(body.toString('utf8')) as ExportRequest;
  if (type.startsWith('application/x-protobuf')) return ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: Number, defaults: false }) as ExportRequest;
  return undefined;
}

const valueOf = (v: AnyValue): string | number | boolean => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));
const attrs = (kvs: KeyValue[] = []): Record<string, string | number | boolean> => Object.fromEntries(kvs.map((kv) => [kv.key, valueOf(kv.value)]));

/** Bodies over 8 MiB are refused: the collector holds everything it is sent. */
const MAX_BODY = 8 * 1024 * 1024;

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const rejected: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      const protocol = type.startsWith('application/x-protobuf') ? 'http/protobuf' : 'http/json';
      try {
        const body = req.method === 'POST' && req.url === '/v1/traces' && size <= MAX_BODY ? decode(type, Buffer.concat(chunks)) : undefined;
        if (!body) {
          rejected.push(`${req.method} ${req.url} ${type} ${size} bytes`);
          res.writeHead(400).end();
          return;
        }
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attrs(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const sp of ss.spans ?? []) {
              spans.push({ traceId: hex(sp.traceId), spanId: hex(sp.spanId), parentSpanId: hex(sp.parentSpanId), name: sp.name, kind: sp.kind, service, attributes: attrs(sp.attributes), protocol });
            }
          }
        }
        // An empty ExportTraceServiceResponse: full success, in the request's encoding.
        if (protocol === 'http/protobuf') res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (e) {
        rejected.push(`undecodable ${type} body: ${(e as Error).message}`);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    rejected,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
