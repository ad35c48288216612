// CancelTask racing the first send: the reviewer takes a second to answer its first message, and
// the planner's task is cancelled 0 to 1,000 ms after it started. Whenever the cancel lands (before
// the step's message went out, while it is in flight, after the agent answered), no task of the
// agent's is left running, and the plan's CANCELED status names each remote task it cancelled.
import { TaskState, type Task } from '@a2a-js/sdk';
import { startCodeReviewer, startDeployer } from './agents';
import { faceWithAgents, sdkClient, sendReq, textOfStatus, userMsg } from './support/face-client';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

const suite = plannerSuite('a2a-face-cancel');
const face = faceWithAgents(suite, () => Promise.all([startCodeReviewer({ workMs: 1000 }), startDeployer()]));

it.each([0, 50, 100, 250, 500, 1000])('a cancel %i ms after the start leaves the agent no task running', async (afterMs) => {
  const client = await sdkClient(face.api.url, 'JSONRPC');
  const started = (await client.sendMessage(sendReq(userMsg('Release payments-api'), { returnImmediately: true }))) as Task;
  suite.track(started.id);
  await new Promise((r) => setTimeout(r, afterMs));
  const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
  expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  await suite.client.workflow.getHandle(started.id).result().catch(() => undefined);
  if ((await suite.client.workflow.count(`WorkflowId = '${started.id}.review'`)).count > 0) suite.track(`${started.id}.review`);

  // Every task the reviewer made for this plan ends CANCELED, and the plan's last word names it.
  const made = face.reviewer.log.tasks.filter((t) => t.messageId.startsWith(`${started.id}.`)).map((t) => t.taskId);
  for (const taskId of made) await eventually(async () => (await face.reviewer.taskState(taskId)) === 'TASK_STATE_CANCELED', `the reviewer's task ${taskId} CANCELED`);
  const text = textOfStatus(await client.getTask({ tenant: '', id: started.id, historyLength: 0 }));
  for (const taskId of made) expect(text).toContain(taskId);
  // A cancel that came before the step's message went out left nothing at the agent, and says so.
  if (made.length === 0) expect(text).toMatch(/no agent had a task of it running/);
  else expect(text).toMatch(/the agents' tasks cancelled: review \(code-reviewer task /);
  expect(text).not.toMatch(/could not be cancelled/);
});

itReplaysItsHistories(suite);
