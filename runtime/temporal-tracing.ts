// Temporal's OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry) wired to the
// process's tracing (runtime/tracing.ts): a client's StartWorkflow span carries the caller's
// context into the workflow's headers; the workflow's RunWorkflow, StartActivity and
// StartChildWorkflow spans are made in the sandbox and leave it through the `exporter` sink; an
// activity's RunActivity span continues the workflow's, so the A2A call an activity makes
// (a2a/tracing.ts) is its child. Off, a client and a worker get none of it.
//
// The workflow interceptor modules are in every bundle (worker/workflow-bundle.ts), so an image's
// prebuilt bundle traces when its worker is started with OTEL_* set. With tracing off they are
// inert: no header carries a trace context, so they load no OTel module, make no span and send
// nothing (workflows/tracing.ts). docs/tracing.md has the measurement behind that choice.
import type { ClientInterceptors } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import type { Tracing } from './tracing';

/* eslint-disable @typescript-eslint/no-require-imports -- the interceptors load only when tracing is on */
const clientSide = (): typeof import('@temporalio/interceptors-opentelemetry/lib/client') =>
  require('@temporalio/interceptors-opentelemetry/lib/client') as typeof import('@temporalio/interceptors-opentelemetry/lib/client');
const workerSide = (): typeof import('@temporalio/interceptors-opentelemetry/lib/worker') =>
  require('@temporalio/interceptors-opentelemetry/lib/worker') as typeof import('@temporalio/interceptors-opentelemetry/lib/worker');
/* eslint-enable @typescript-eslint/no-require-imports */

/** A Temporal client's interceptors: a StartWorkflow (signal, query, update…) span whose context the workflow continues. */
export function tracingClientInterceptors(tracing: Tracing | undefined): ClientInterceptors | undefined {
  if (!tracing) return undefined;
  return { workflow: [new (clientSide().OpenTelemetryWorkflowClientInterceptor)()] };
}

/** A worker's activity interceptors: RunActivity spans, children of the workflow span that scheduled them. */
export function tracingWorkerInterceptors(tracing: Tracing | undefined): WorkerInterceptors {
  if (!tracing) return {};
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = workerSide();
  return { activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })] };
}

/**
 * The `exporter` sink the workflow interceptors send their spans through. A worker registers it
 * whether tracing is on or not: a workflow started by a traced client may run on a worker that is
 * not tracing, and an unregistered sink is an error in the worker's log at every call.
 */
export function tracingSinks(tracing: Tracing | undefined): InjectedSinks<OpenTelemetrySinks> {
  if (!tracing) return { exporter: { export: { fn: () => undefined } } };
  return { exporter: workerSide().makeWorkflowExporter(tracing.spanProcessor, tracing.resource) };
}
