// The workflow side of tracing, bundled into every workflow bundle (worker/workflow-bundle.ts) as
// an interceptor module. It hands each call to @temporalio/interceptors-opentelemetry only where a
// trace already exists: a start, signal or update whose headers carry a trace context (a traced
// client put it there), and an outbound call (activity, child workflow, continue-as-new, signal)
// made inside a traced span. Everywhere else it calls straight through: a worker without tracing,
// or a workflow nobody traced, makes no span, sends nothing to the `exporter` sink, and runs the
// same code as before, so committed histories replay unchanged (test/histories.test.ts).
// Queries are never traced: the face and the API read every plan by query, and a span per read
// would bury the plan's own. Spans and headers issue no commands, so tracing on or off, a history
// replays either way.
import type * as OtelApi from '@opentelemetry/api';
import type {
  ActivityInput,
  ContinueAsNewInput,
  DisposeInput,
  GetLogAttributesInput,
  Headers,
  LocalActivityInput,
  Next,
  SignalInput,
  SignalWorkflowInput,
  StartChildWorkflowExecutionInput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type * as OtelWorkflow from '@temporalio/interceptors-opentelemetry/lib/workflow';

/** The interceptors package's header (instrumentation.ts TRACE_HEADER), named here so that checking it loads nothing. */
const TRACE_HEADER = '_tracer-data';

/**
 * One workflow's tracing. The OTel modules are required at its first traced call, not imported:
 * every workflow start evaluates the modules its interceptors import again (the reusable V8
 * context's per-workflow module cache, bench/lib/workflow-modules.ts), and the OTel SDK is most
 * of the bundle's size. Untraced, a workflow evaluates this file alone.
 */
class Tracer {
  private loaded: { api: typeof OtelApi; inbound: OtelWorkflow.OpenTelemetryInboundInterceptor; outbound: OtelWorkflow.OpenTelemetryOutboundInterceptor; internals: OtelWorkflow.OpenTelemetryInternalsInterceptor } | undefined;

  /** The package's interceptors, made (and the sandbox's tracer provider registered) at the first traced call. */
  get otel(): NonNullable<Tracer['loaded']> {
    if (!this.loaded) {
      /* eslint-disable @typescript-eslint/no-require-imports -- loaded only by a traced workflow (above) */
      const api = require('@opentelemetry/api') as typeof OtelApi;
      const w = require('@temporalio/interceptors-opentelemetry/lib/workflow') as typeof OtelWorkflow;
      /* eslint-enable @typescript-eslint/no-require-imports */
      this.loaded = { api, inbound: new w.OpenTelemetryInboundInterceptor(), outbound: new w.OpenTelemetryOutboundInterceptor(), internals: new w.OpenTelemetryInternalsInterceptor() };
    }
    return this.loaded;
  }

  /** True inside a span of this workflow's; false, loading nothing, in a workflow that never saw a trace. */
  inTrace(): boolean {
    const api = this.loaded?.api;
    return api !== undefined && api.trace.getSpan(api.context.active()) !== undefined;
  }

  get used(): boolean {
    return this.loaded !== undefined;
  }
}

const carriesTrace = (headers: Headers): boolean => headers[TRACE_HEADER] !== undefined;

class TracedInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly t: Tracer) {}

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    return carriesTrace(input.headers) ? this.t.otel.inbound.execute(input, next) : next(input);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    return carriesTrace(input.headers) ? this.t.otel.inbound.handleSignal(input, next) : next(input);
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return carriesTrace(input.headers) ? this.t.otel.inbound.handleUpdate(input, next) : next(input);
  }

  validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    return carriesTrace(input.headers) ? this.t.otel.inbound.validateUpdate(input, next) : next(input);
  }
}

class TracedOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly t: Tracer) {}

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return this.t.inTrace() ? this.t.otel.outbound.scheduleActivity(input, next) : next(input);
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return this.t.inTrace() ? this.t.otel.outbound.scheduleLocalActivity(input, next) : next(input);
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return this.t.inTrace() ? this.t.otel.outbound.startChildWorkflowExecution(input, next) : next(input);
  }

  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    return this.t.inTrace() ? this.t.otel.outbound.continueAsNew(input, next) : next(input);
  }

  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>): Promise<void> {
    return this.t.inTrace() ? this.t.otel.outbound.signalWorkflow(input, next) : next(input);
  }

  /** The trace and span ids in the workflow's log lines, when it is traced. */
  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
    return this.t.inTrace() ? this.t.otel.outbound.getLogAttributes(input, next) : next(input);
  }
}

class TracedInternals implements WorkflowInternalsInterceptor {
  constructor(private readonly t: Tracer) {}

  /** Releases the sandbox's context manager, which only a traced workflow made. */
  dispose(input: DisposeInput, next: Next<WorkflowInternalsInterceptor, 'dispose'>): void | Promise<void> {
    return this.t.used ? this.t.otel.internals.dispose(input, next) : next(input);
  }
}

export const interceptors = (): WorkflowInterceptors => {
  const tracer = new Tracer();
  return { inbound: [new TracedInbound(tracer)], outbound: [new TracedOutbound(tracer)], internals: [new TracedInternals(tracer)] };
};
