// The chain under everything: a dev server with the planner's search attributes, a worker that runs
// a workflow calling an activity, and a visibility query that finds it by a search attribute.
import type { Client } from '@temporalio/client';
import { findTemporalCli } from '../deploy/dev/temporal-cli';
import { loadConfig } from '../runtime/config';
import { startDeployer, type AgentHandle } from './agents';
import { connectClient, startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { DEPLOY, start, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

let client: Client;
let workers: RunningWorkers;
let deployer: AgentHandle;
const queue = uniqueQueue('foundation');

beforeAll(async () => {
  client = await connectClient();
  deployer = await startDeployer();
  workers = await startWorkers(queue);
});
afterAll(async () => {
  await workers?.stop();
  await deployer?.close();
  await client?.connection.close();
});

it('the dev server carries the planner search attributes with their types', async () => {
  const res = await client.connection.operatorService.listSearchAttributes({ namespace: 'default' });
  for (const name of ['A2aAgent', 'A2aTaskId', 'A2aTaskState', 'PlannerWaitingOn', 'PlanId', 'PlanStep', 'PlannerOwner']) {
    expect(res.customAttributes?.[name]).toBe(2); // INDEXED_VALUE_TYPE_KEYWORD
  }
  expect(res.customAttributes?.PlannerWaitText).toBe(1); // TEXT
  expect(res.customAttributes?.PlannerTurn).toBe(3); // INT
  expect(res.customAttributes?.PlannerWaitingSince).toBe(6); // DATETIME
});

it('a workflow that calls an activity and upserts a search attribute is found by a visibility query', async () => {
  const handle = await start(client, queue, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
  const s = await waitForStatus(handle, (x) => x.state === 'TASK_STATE_AUTH_REQUIRED', 'AUTH_REQUIRED');
  const query = `A2aTaskState = "TASK_STATE_AUTH_REQUIRED" AND A2aTaskId = "${s.taskId}"`;
  const ids = await eventually(async () => {
    const found: string[] = [];
    for await (const wf of client.workflow.list({ query })) found.push(wf.workflowId);
    return found.length ? found : undefined;
  }, 'visibility');
  expect(ids).toEqual([handle.workflowId]);
  await deployer.approve(s.taskId!);
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
});

it('bad configuration names the variable', () => {
  expect(() => loadConfig({ TEMPORAL_ADDRESS: 'nope' })).toThrow(/TEMPORAL_ADDRESS: host:port/);
  expect(() => loadConfig({ PLANNER_ALERT_SINKS: 'log,pager' })).toThrow(/PLANNER_ALERT_SINKS/);
  expect(() => loadConfig({ PLANNER_ALERT_SINKS: 'webhook' })).toThrow(/PLANNER_ALERT_WEBHOOK_URL is not set/);
  expect(() => findTemporalCli({ TEMPORAL_CLI: '/nonexistent/temporal' })).toThrow(/TEMPORAL_CLI=\/nonexistent\/temporal is not an executable/);
});
