// A first message whose reply was lost, at an agent that will not say whether it got it: the
// planner never resends blindly; an operator decides (adopt the task, or resend).
import { connectA2A } from '../a2a';
import { answerTask, resolveSend } from '../client/delegated-task';
import { startCodeReviewer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { startCuttingProxy, type CuttingProxy } from './support/cutting-proxy';
import { DIFF, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('ambiguous-send');
let reviewer: AgentHandle;
let proxy: CuttingProxy;
beforeAll(async () => {
  reviewer = await startCodeReviewer({ streaming: false });
  proxy = await startCuttingProxy(reviewer.baseUrl);
  proxy.refuseListTasks();
});
afterAll(async () => {
  await proxy?.close();
  await reviewer?.close();
});

const firsts = (workflowId: string) => reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${workflowId}/`) && m.taskId === undefined);

it('alerts the operator and waits; adopting the task the agent made goes on without a second message', async () => {
  const workflowId = `ambiguous-${Date.now()}`;
  proxy.cutNext((body) => body.includes(`${workflowId}/`)); // the first SendMessage reaches the agent; its reply is lost
  const handle = await suite.start({ agent: { name: 'code-reviewer', url: proxy.baseUrl }, message: { text: DIFF } }, workflowId);
  const s = await waitForStatus(handle, (x) => x.unresolvedSend !== undefined, 'the unresolved send', 30_000);
  expect(s.waitingOn).toBe('operator');
  expect(s.unresolvedSend).toMatch(/cannot tell whether it got it/);
  const alert = await eventually(() => suite.sink.forWorkflow(handle.workflowId).find((a) => a.body.kind === 'unresolved'), 'the unresolved alert');
  expect(alert.body.text).toContain(handle.workflowId);
  expect(firsts(handle.workflowId)).toHaveLength(1);

  // The operator looks at the agent (here: its ListTasks, which the planner may not use) and adopts.
  const direct = await connectA2A(reviewer.baseUrl);
  let taskId: string;
  try {
    const list = await direct.listTasks({ historyLength: 10 });
    taskId = list.tasks.find((t) => (t.history ?? []).some((m) => m.messageId.startsWith(`${handle.workflowId}/`)))!.id;
  } finally {
    await direct.close();
  }
  const after = await resolveSend(suite.client, handle.workflowId, { action: 'adopt', taskId });
  expect(after.unresolvedSend).toBeUndefined();
  const q = await waitForStatus(handle, (x) => x.waitingOn === 'human', 'the question of the adopted task');
  expect(q.taskId).toBe(taskId);
  await answerTask(suite.client, handle.workflowId, { text: 'main' });
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
  expect(firsts(handle.workflowId)).toHaveLength(1); // nothing was sent twice
});

it('refuses a decision when nothing waits for one, naming why', async () => {
  const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
  await waitForStatus(handle, (x) => x.waitingOn === 'human', 'the question');
  const err = (await resolveSend(suite.client, handle.workflowId, { action: 'resend' }).then(
    () => undefined,
    (e: unknown) => e,
  )) as { cause?: { message?: string } } | undefined;
  expect(String(err?.cause?.message)).toMatch(/no send is waiting for a decision/);
  await answerTask(suite.client, handle.workflowId, { text: 'main' });
  await handle.result();
});

itReplaysItsHistories(suite);
