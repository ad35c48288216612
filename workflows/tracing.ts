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
import * as otel from '@opentelemetry/api';
import type {
  ActivityInput,
  ContinueAsNewInput,
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
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';

const carriesTrace = (headers: Headers): boolean => headers[TRACE_HEADER] !== undefined;
/** True inside a span of this workflow's (the sandbox's context manager exists only once one was made). */
const inTrace = (): boolean => otel.trace.getSpan(otel.context.active()) !== undefined;

class TracedInbound implements WorkflowInboundCallsInterceptor {
  // Made at the first traced call: making it registers the sandbox's tracer provider.
  private otelInbound: OpenTelemetryInboundInterceptor | undefined;
  private get traced(): OpenTelemetryInboundInterceptor {
    return (this.otelInbound ??= new OpenTelemetryInboundInterceptor());
  }

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    return carriesTrace(input.headers) ? this.traced.execute(input, next) : next(input);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    return carriesTrace(input.headers) ? this.traced.handleSignal(input, next) : next(input);
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return carriesTrace(input.headers) ? this.traced.handleUpdate(input, next) : next(input);
  }

  validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    return carriesTrace(input.headers) ? this.traced.validateUpdate(input, next) : next(input);
  }
}

class TracedOutbound implements WorkflowOutboundCallsInterceptor {
  private otelOutbound: OpenTelemetryOutboundInterceptor | undefined;
  private get traced(): OpenTelemetryOutboundInterceptor {
    return (this.otelOutbound ??= new OpenTelemetryOutboundInterceptor());
  }

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return inTrace() ? this.traced.scheduleActivity(input, next) : next(input);
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return inTrace() ? this.traced.scheduleLocalActivity(input, next) : next(input);
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return inTrace() ? this.traced.startChildWorkflowExecution(input, next) : next(input);
  }

  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    return inTrace() ? this.traced.continueAsNew(input, next) : next(input);
  }

  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>): Promise<void> {
    return inTrace() ? this.traced.signalWorkflow(input, next) : next(input);
  }

  /** The trace and span ids in the workflow's log lines, when it is traced. */
  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
    return inTrace() ? this.traced.getLogAttributes(input, next) : next(input);
  }
}

export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new TracedInbound()],
  outbound: [new TracedOutbound()],
  // Its dispose only releases the sandbox's context manager, and only once one was made.
  internals: [new OpenTelemetryInternalsInterceptor()],
});
