// OpenTelemetry tracing for the planner's processes: off unless the standard OTEL_* variables ask
// for it, and then one tracer provider per process exporting over OTLP/HTTP (protobuf or JSON).
// Off, nothing here is loaded beyond this file and the API's no-op tracer: the A2A client's spans
// (a2a/tracing.ts) cost a no-op call, and the worker adds no interceptors (runtime/temporal-tracing.ts).
// The variables are read from the `env` given (as the rest of the configuration is), not from
// process.env, so that a test can turn tracing on for one in-process worker. docs/tracing.md.
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';
import { z } from 'zod';
import { describeIssues } from '../a2a/validate';

export const TRACE_EXPORTERS = ['otlp', 'console', 'none'] as const;
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/** A value from a fixed list, refused with a message of its own (the generic enum message names no remedy). */
const oneOf = <T extends string>(values: readonly T[], why: (v: string) => string) =>
  z.string().superRefine((v, ctx) => {
    if (!values.includes(v as T)) ctx.addIssue({ code: 'custom', message: why(v) });
  }) as unknown as z.ZodType<T, string>;

const exporters = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
  .pipe(z.array(oneOf(TRACE_EXPORTERS, (v) => `${JSON.stringify(v)}: the planner's exporters are ${TRACE_EXPORTERS.join(', ')}`)).min(1));

const protocol = oneOf(OTLP_PROTOCOLS, (v) =>
  v === 'grpc'
    ? 'grpc is not supported: the planner exports over OTLP/HTTP; set http/protobuf (the default) or http/json'
    : `${JSON.stringify(v)}: one of ${OTLP_PROTOCOLS.join(', ')}`,
);

const endpoint = z.url({ protocol: /^https?$/, error: 'an http(s) URL, e.g. http://127.0.0.1:4318' });

const TracingEnvSchema = z.object({
  OTEL_SDK_DISABLED: z.enum(['true', 'false', 'TRUE', 'FALSE', '']).optional(),
  OTEL_TRACES_EXPORTER: exporters.optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol.optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
});

export interface TracingSettings {
  exporters: Array<'otlp' | 'console'>;
  protocol: (typeof OTLP_PROTOCOLS)[number];
  /** Where OTLP spans go: the traces endpoint, or `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  url: string;
  serviceName: string;
}

/**
 * The tracing the environment asks for, or undefined when it asks for none. The OTel spec makes
 * OTLP the default exporter; the planner keeps tracing off by default instead, so it is on when
 * OTEL_TRACES_EXPORTER names an exporter or an OTLP endpoint is set, and OTEL_SDK_DISABLED=true
 * or OTEL_TRACES_EXPORTER=none turn it off. A bad value throws, naming the variable.
 */
export function tracingSettings(env: NodeJS.ProcessEnv, defaultServiceName: string): TracingSettings | undefined {
  const known = Object.fromEntries(Object.keys(TracingEnvSchema.shape).flatMap((k) => (env[k] !== undefined && env[k] !== '' ? [[k, env[k]]] : [])));
  const parsed = TracingEnvSchema.safeParse(known);
  if (!parsed.success) throw new Error(`tracing configuration: ${describeIssues(parsed.error, known)}`);
  const e = parsed.data;
  if (e.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return undefined;
  const endpointSet = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  const chosen = e.OTEL_TRACES_EXPORTER ?? (endpointSet ? ['otlp' as const] : []);
  const on = chosen.filter((x): x is 'otlp' | 'console' => x !== 'none');
  if (on.length === 0 || chosen.includes('none')) return undefined;
  const base = (e.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '');
  return {
    exporters: [...new Set(on)],
    protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    url: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    serviceName: e.OTEL_SERVICE_NAME ?? defaultServiceName,
  };
}

/** A process's tracing, once on: what the Temporal interceptors export workflow spans through. */
export interface Tracing {
  settings: TracingSettings;
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Sends the spans still batched (a process calls it before it exits). */
  flush(): Promise<void>;
}

let installed: Tracing | undefined;

/**
 * Turns tracing on for this process when `env` asks for it: a global tracer provider with the
 * AsyncLocalStorage context manager and the W3C trace-context propagator, exporting in batches.
 * Only the first call that turns it on counts (one provider per process, as the OTel API allows);
 * later calls return that one. The SDK is required here, not imported, so a planner with tracing
 * off never loads it.
 */
export function startTracing(env: NodeJS.ProcessEnv, defaultServiceName: string): Tracing | undefined {
  if (installed) return installed;
  const settings = tracingSettings(env, defaultServiceName);
  if (!settings) return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports -- the SDK loads only when tracing is on */
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { Resource, envDetectorSync } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const exporterModule =
    settings.protocol === 'http/json'
      ? (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http'))
      : (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto'));
  /* eslint-enable @typescript-eslint/no-require-imports */
  // OTEL_RESOURCE_ATTRIBUTES (read by the detector from the process) adds to the service's name.
  const resource = Resource.default().merge(new Resource({ 'service.name': settings.serviceName })).merge(envDetectorSync.detect());
  const processors: SpanProcessor[] = settings.exporters.map((x) =>
    x === 'otlp' ? new BatchSpanProcessor(new exporterModule.OTLPTraceExporter({ url: settings.url })) : new SimpleSpanProcessor(new ConsoleSpanExporter()),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  // W3C trace context only, whatever OTEL_PROPAGATORS says: a caller's baggage would otherwise be
  // kept in its plan's history and sent on to every agent (server/face/trace-context.ts).
  provider.register({ propagator: new W3CTraceContextPropagator() });
  // The workflows' spans reach every exporter too: one processor that fans out.
  const spanProcessor: SpanProcessor = {
    onStart: (span, ctx) => processors.forEach((p) => p.onStart(span, ctx)),
    onEnd: (span) => processors.forEach((p) => p.onEnd(span)),
    forceFlush: async () => void (await Promise.all(processors.map((p) => p.forceFlush()))),
    shutdown: async () => void (await Promise.all(processors.map((p) => p.shutdown()))),
  };
  installed = { settings, spanProcessor, resource, flush: () => provider.forceFlush() };
  return installed;
}
