// OpenTelemetry tracing end to end (docs/tracing.md): the planner's worker, client and face with
// OTEL_* set, exporting OTLP/JSON to a collector on loopback (support/otlp-collector.ts). The seed
// plan is one trace from its start through the plan workflow, its two step workflows, their
// activities and A2A calls, into the agents (which receive the call span's traceparent); a caller's
// traceparent on the face is the parent of the plan it starts; two planners chained over A2A are
// one trace. Off by default (tracingSettings), and then free at a workflow start.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { context, trace } from '@opentelemetry/api';
import { Client } from '@temporalio/client';
import { connectA2A, TaskNotFoundError } from '../a2a';
import { answerStep, startPlan } from '../client/plan';
import { startTracing, tracingSettings, type Tracing } from '../runtime/tracing';
import { tracingClientInterceptors } from '../runtime/temporal-tracing';
import type { RunningServer } from '../server/main';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { measureWorkflowModules } from '../bench/lib/workflow-modules';
import { startChildWorker, startWorkers, testDataConverter, testEnv, uniqueQueue, type ChildWorker, type RunningWorkers } from './harness/planner';
import { start } from './support/delegated';
import { call, startApi, TOKEN } from './support/api';
import { startOtlpCollector, type CollectedSpan, type OtlpCollector } from './support/otlp-collector';
import { DIFF_TEXT, RELEASE_PLAN, step, waitForPlan } from './support/plans';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

let collector: OtlpCollector;
const otelEnv = () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'planner-under-test' });
// The suite's in-process workers turn tracing on for this process (worker/workers.ts).
const suite = plannerSuite('tracing', async () => {
  collector = await startOtlpCollector();
  return otelEnv();
});
let tracing: Tracing;
let traced: Client;
let reviewer: AgentHandle;
let deployer: AgentHandle;

beforeAll(async () => {
  for (const level of ['error', 'warn'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
  tracing = startTracing(otelEnv(), 'unused: the workers started it')!;
  // A client as the server's and the worker's are made: its StartWorkflow span is the plan's root.
  traced = new Client({ connection: suite.client.connection, namespace: suite.client.options.namespace, dataConverter: testDataConverter(), interceptors: tracingClientInterceptors(tracing) });
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
});
afterAll(async () => {
  await Promise.all([reviewer?.close(), deployer?.close()]);
  await collector?.close();
  jest.restoreAllMocks();
});

const inTrace = (traceId: string): CollectedSpan[] => collector.spans.filter((s) => s.traceId === traceId);
const named = (spans: CollectedSpan[], name: string): CollectedSpan[] => spans.filter((s) => s.name === name);

/** The span's ancestors' names, nearest first, as far as the collected spans go. */
function ancestry(spans: CollectedSpan[], span: CollectedSpan): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const names: string[] = [];
  for (let p = byId.get(span.parentSpanId); p && names.length < 50; p = byId.get(p.parentSpanId)) names.push(p.name);
  return names;
}

/** Flushes the batch until `check` passes on what the collector holds. */
async function collected<T>(check: () => T | undefined, what: string): Promise<T> {
  return eventually(async () => {
    await tracing.flush();
    return check();
  }, what, 20_000);
}

describe('tracing settings', () => {
  it('is off with no OTEL_* variables, and with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none', () => {
    expect(tracingSettings({}, 'svc')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }, 'svc')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }, 'svc')).toBeUndefined();
  });

  it('is on with an endpoint or an exporter, OTLP over http/protobuf unless told otherwise', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }, 'svc')).toEqual({
      exporters: ['otlp'],
      protocol: 'http/protobuf',
      url: 'http://127.0.0.1:4318/v1/traces',
      serviceName: 'svc',
    });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:1/t', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'me' }, 'svc')).toEqual({
      exporters: ['otlp'],
      protocol: 'http/json',
      url: 'http://c:1/t',
      serviceName: 'me',
    });
  });

  it('refuses what it cannot do, naming the variable', () => {
    expect(() => tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'svc')).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL.*grpc is not supported/);
    expect(() => tracingSettings({ OTEL_TRACES_EXPORTER: 'jaeger' }, 'svc')).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'svc')).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});

describe('tracing off costs a workflow start nothing', () => {
  it('evaluates no OpenTelemetry module at an untraced workflow start or with the bundle, only workflows/tracing.ts, once', async () => {
    const cost = await measureWorkflowModules(5, readFileSync(testEnv().bundle, 'utf8'));
    expect([...cost.perWorkflow, ...cost.shared].filter((id) => /opentelemetry/.test(id))).toEqual([]);
    expect(cost.shared.filter((id) => id.includes('workflows/tracing.ts'))).toHaveLength(1);
  });
});

describe('the seed plan with tracing on', () => {
  it('is one trace: plan → steps → activities → A2A calls → the agents', async () => {
    const agentUrls = { 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl };
    const { handle, planId } = await startPlan(traced, { planFile: RELEASE_PLAN }, { agentUrls }, { taskQueue: suite.queue });
    suite.track(planId);
    await waitForPlan(handle, (s) => step(s, 'review').waitingOn === 'human', 'the review question');
    await answerStep(traced, planId, 'review', { text: 'main', from: 'test' });
    const approval = await waitForPlan(handle, (s) => step(s, 'deploy').waitingOn === 'operator', 'the approval request');
    await deployer.approve(step(approval, 'deploy').taskId!);
    const result = await handle.result();
    expect(result.state).toBe('completed');
    suite.track(`${planId}.review`, `${planId}.deploy`);

    const root = await collected(() => collector.spans.find((s) => s.name === 'StartWorkflow:PlanWorkflow' && s.attributes.temporalWorkflowId === planId), 'the plan start span');
    expect(root.service).toBe('planner-under-test');
    // The plan's own run and both steps' runs end last: wait for all of them.
    const spans = await collected(() => {
      const t = inTrace(root.traceId);
      return named(t, 'RunWorkflow:PlanWorkflow').length === 1 && named(t, 'RunWorkflow:DelegatedTaskWorkflow').length >= 2 ? t : undefined;
    }, 'the plan and both steps in the trace');

    expect(named(spans, 'RunWorkflow:PlanWorkflow')[0]!.parentSpanId).toBe(root.spanId);
    expect(named(spans, 'StartChildWorkflow:DelegatedTaskWorkflow')).toHaveLength(2);
    for (const run of named(spans, 'RunWorkflow:DelegatedTaskWorkflow')) {
      expect(ancestry(spans, run).slice(0, 2)).toEqual(['StartChildWorkflow:DelegatedTaskWorkflow', 'RunWorkflow:PlanWorkflow']);
    }
    // Each agent's A2A calls are in the trace, under the activity that made them and the step that ran it.
    const a2a = spans.filter((s) => s.name.startsWith('A2A '));
    for (const agent of ['code-reviewer', 'deployer']) {
      const calls = a2a.filter((s) => s.attributes['a2a.agent'] === agent);
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) {
        const up = ancestry(spans, c);
        expect(up[0]).toMatch(/^RunActivity:/);
        expect(up).toEqual(expect.arrayContaining(['RunWorkflow:DelegatedTaskWorkflow', 'RunWorkflow:PlanWorkflow', 'StartWorkflow:PlanWorkflow']));
        expect(c.attributes['a2a.method']).toBe(c.name.slice('A2A '.length));
      }
    }
    // The first send to the deployer is named by its task id, the one the plan reported.
    const deploySends = a2a.filter((s) => s.attributes['a2a.agent'] === 'deployer' && /^A2A Send/.test(s.name));
    expect(deploySends.map((s) => s.attributes['a2a.task.id'])).toContain(step(approval, 'deploy').taskId);

    // The agents received the trace: every A2A request they got for this plan carried the traceparent
    // of one of its call spans.
    const callIds = new Set(a2a.map((s) => s.spanId));
    for (const agent of [reviewer, deployer]) {
      const parents = agent.log.received.map((r) => r.headers.traceparent).filter((h): h is string => typeof h === 'string' && h.includes(root.traceId));
      expect(parents.length).toBeGreaterThan(0);
      for (const p of parents) {
        const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(p) ?? [];
        expect(traceId).toBe(root.traceId);
        expect(callIds.has(spanId!)).toBe(true);
      }
    }
    expect(collector.rejected).toEqual([]);
  });
});

describe('an A2A call with tracing on', () => {
  it('is a CLIENT span under the active one, and a failed call says what failed', async () => {
    const client = await connectA2A(reviewer.baseUrl, { agentName: 'code-reviewer' });
    const parent = trace.getTracer('test').startSpan('caller');
    try {
      await expect(context.with(trace.setSpan(context.active(), parent), () => client.getTask({ id: 'no-such-task' }))).rejects.toThrow(TaskNotFoundError);
    } finally {
      parent.end();
      await client.close();
    }
    const [span] = await collected(() => {
      const found = collector.spans.filter((sp) => sp.parentSpanId === parent.spanContext().spanId);
      return found.length > 0 ? found : undefined;
    }, 'the GetTask span');
    expect(span).toMatchObject({ name: 'A2A GetTask', kind: 3, traceId: parent.spanContext().traceId });
    expect(span!.attributes).toMatchObject({ 'a2a.agent': 'code-reviewer', 'a2a.method': 'GetTask', 'a2a.task.id': 'no-such-task', 'error.type': 'TaskNotFoundError' });
    // The agent saw the call's span as the parent of its work.
    expect(reviewer.log.received.some((r) => r.headers.traceparent === `00-${span!.traceId}-${span!.spanId}-01`)).toBe(true);
  });
});

describe("the face continues its caller's trace", () => {
  let api: RunningServer;
  beforeAll(async () => {
    process.env.PLANNER_A2A_AGENT_URLS = JSON.stringify({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl });
    api = await startApi(traced, suite.queue);
  });
  afterAll(async () => {
    delete process.env.PLANNER_A2A_AGENT_URLS;
    await api?.close();
  });

  it("makes the caller's span the parent of the face's, and the plan it starts part of that trace", async () => {
    const traceId = randomUUID().replace(/-/g, '');
    const callerSpan = randomUUID().replace(/-/g, '').slice(0, 16);
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Release payments-api' }], metadata: { skill: 'release' } };
    const res = await call(api.url, 'POST', '/a2a/jsonrpc', {
      body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message, configuration: { returnImmediately: true } } },
      headers: { 'a2a-version': '1.0', traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    const task = (res.body as { result?: { task?: { id: string } } }).result?.task;
    expect(task?.id).toBeDefined();
    suite.track(task!.id);

    const spans = await collected(() => {
      const t = inTrace(traceId);
      return t.some((s) => s.name === 'A2A face SendMessage') && t.some((s) => s.name.startsWith('A2A ') && s.attributes['a2a.agent'] === 'code-reviewer') ? t : undefined;
    }, "the face's span and the first step's A2A call in the caller's trace");
    const face = named(spans, 'A2A face SendMessage')[0]!;
    expect(face.parentSpanId).toBe(callerSpan);
    const start = spans.find((s) => s.name === 'StartWorkflow:PlanWorkflow' && s.attributes.temporalWorkflowId === task!.id);
    expect(start?.parentSpanId).toBe(face.spanId);
    // The code reviewer got the same trace from the planner.
    expect(reviewer.log.received.some((r) => String(r.headers.traceparent ?? '').startsWith(`00-${traceId}-`))).toBe(true);

    // A workflow's span is exported when its run ends: cancel the plan, then its chain is complete.
    await traced.workflow.getHandle(task!.id).cancel();
    const ended = await collected(() => {
      const t = inTrace(traceId);
      return named(t, 'RunWorkflow:PlanWorkflow').length === 1 && named(t, 'RunWorkflow:DelegatedTaskWorkflow').length === 1 ? t : undefined;
    }, 'the cancelled plan and its review step in the trace');
    const review = ended.find((s) => s.name.startsWith('A2A Send') && s.attributes['a2a.agent'] === 'code-reviewer')!;
    expect(ancestry(ended, review)).toEqual(
      expect.arrayContaining(['RunActivity:sendMessage', 'RunWorkflow:DelegatedTaskWorkflow', 'RunWorkflow:PlanWorkflow', 'StartWorkflow:PlanWorkflow', 'A2A face SendMessage']),
    );
    expect(ancestry(ended, review).at(-1)).toBe('A2A face SendMessage');
  });
});

describe('a chain of two planners', () => {
  // Planner A: the suite's workers. Planner B: workers on a queue of its own and its face, in this
  // process, so traced as A is; A's step delegates to B's face as to any agent.
  const queueB = uniqueQueue('tracing-b');
  let workersB: RunningWorkers;
  let apiB: RunningServer;
  beforeAll(async () => {
    workersB = await startWorkers(queueB, otelEnv());
    apiB = await startApi(traced, queueB);
    process.env.A2A_AGENT_CREDENTIALS = JSON.stringify({ 'planner-b': { bearer: TOKEN, origins: [new URL(apiB.url).origin] } });
  });
  afterAll(async () => {
    delete process.env.A2A_AGENT_CREDENTIALS;
    await apiB?.close();
    await workersB?.stop();
  });

  it("is one trace from A's plan through B's face and plan to B's agent", async () => {
    const planB = {
      name: 'release-b',
      agents: { 'code-reviewer': { url: reviewer.baseUrl } },
      steps: [{ id: 'review', agent: 'code-reviewer', text: 'Please review this diff:\n+const refund = amount > 0;' }],
    };
    const planA = { name: 'delegate-to-b', agents: { 'planner-b': { url: apiB.url } }, steps: [{ id: 'release', agent: 'planner-b', text: 'Run the release plan', data: { plan: planB } }] };
    const { handle, planId } = await startPlan(traced, { plan: planA }, {}, { taskQueue: suite.queue });
    suite.track(planId, `${planId}.release`);
    // B's reviewer question reaches A's step: the whole chain has run once.
    await waitForPlan(handle, (st) => step(st, 'release').waitingOn === 'human', "B's reviewer question on A's step");
    const root = await collected(() => collector.spans.find((sp) => sp.name === 'StartWorkflow:PlanWorkflow' && sp.attributes.temporalWorkflowId === planId), "A's plan start span");
    expect(reviewer.log.received.some((r) => String(r.headers.traceparent ?? '').startsWith(`00-${root.traceId}-`))).toBe(true);

    // A's cancel reaches B's task (CancelTask on its face), which ends B's plan: every span has ended.
    await handle.cancel();
    const spans = await collected(() => {
      const t = inTrace(root.traceId);
      return named(t, 'RunWorkflow:PlanWorkflow').length === 2 && named(t, 'RunWorkflow:DelegatedTaskWorkflow').length === 2 ? t : undefined;
    }, "both plans and both steps in A's trace");
    const atReviewer = spans.find((sp) => sp.name.startsWith('A2A Send') && sp.attributes['a2a.agent'] === 'code-reviewer')!;
    const up = ancestry(spans, atReviewer);
    // Nearest first: B's step, B's plan, B's face taking A's call, A's call, A's step, A's plan.
    const landmarks = up.filter((n) => /^(RunWorkflow:|A2A )/.test(n));
    expect(landmarks).toEqual([
      'RunWorkflow:DelegatedTaskWorkflow',
      'RunWorkflow:PlanWorkflow',
      expect.stringMatching(/^A2A face Send/),
      expect.stringMatching(/^A2A Send/),
      'RunWorkflow:DelegatedTaskWorkflow',
      'RunWorkflow:PlanWorkflow',
    ]);
    expect(up.at(-1)).toBe('StartWorkflow:PlanWorkflow');
    const callToB = spans.find((sp) => sp.spanId === spans.find((f) => /^A2A face Send/.test(f.name))!.parentSpanId)!;
    expect(callToB.attributes['a2a.agent']).toBe('planner-b');
    const planBRun = spans.find((sp) => sp.name === 'StartWorkflow:PlanWorkflow' && sp.spanId !== root.spanId);
    expect(planBRun).toBeDefined();
    suite.track(String(planBRun!.attributes.temporalWorkflowId));
  });
});

describe('the worker process (worker/main.ts), with only an endpoint set', () => {
  const queueC = uniqueQueue('tracing-proc');
  let protobuf: OtlpCollector;
  let worker: ChildWorker;
  let instant: AgentHandle;
  beforeAll(async () => {
    [protobuf, instant] = await Promise.all([startOtlpCollector(), startCodeReviewer({ questions: 0 })]);
    worker = await startChildWorker(queueC, { OTEL_EXPORTER_OTLP_ENDPOINT: protobuf.url, OTEL_SERVICE_NAME: 'worker-process', OTEL_BSP_SCHEDULE_DELAY: '100' });
  });
  afterAll(async () => {
    await worker?.kill('SIGTERM');
    await Promise.all([protobuf?.close(), instant?.close()]);
  });

  it('exports over http/protobuf, continuing the trace of the client that started the task', async () => {
    const task = await start(traced, queueC, { agent: { name: 'code-reviewer', url: instant.baseUrl }, message: { text: DIFF_TEXT } });
    suite.track(task.workflowId);
    expect((await task.result()).state).toBe('TASK_STATE_COMPLETED');
    const root = await collected(() => collector.spans.find((sp) => sp.name === 'StartWorkflow:DelegatedTaskWorkflow' && sp.attributes.temporalWorkflowId === task.workflowId), 'the start span in this process');
    const spans = await collected(() => {
      const t = protobuf.spans.filter((sp) => sp.traceId === root.traceId);
      return t.some((sp) => sp.name === 'RunWorkflow:DelegatedTaskWorkflow') && t.some((sp) => sp.name.startsWith('A2A Send')) ? t : undefined;
    }, "the worker process's spans of the task");
    expect(new Set(spans.map((sp) => `${sp.service} ${sp.protocol}`))).toEqual(new Set(['worker-process http/protobuf']));
    expect(named(spans, 'RunWorkflow:DelegatedTaskWorkflow')[0]!.parentSpanId).toBe(root.spanId);
    const send = spans.find((sp) => sp.name.startsWith('A2A Send'))!;
    expect(send.attributes['a2a.agent']).toBe('code-reviewer');
    expect(protobuf.rejected).toEqual([]);
  });
});

itReplaysItsHistories(suite);
