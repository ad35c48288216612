// A conversation across turns on the planner's face: the reviewer asks the same question three
// times on one task, and a client answers each the instant the previous state arrives, over both
// bindings, blocking and streaming. Every answer reaches the agent and every call returns at the
// state that follows its own answer: a new question at the next turn, then the deploy's approval.
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client as SdkClient } from '@a2a-js/sdk/client';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer } from './agents';
import { faceWithAgents, sdkClient, sendReq, textOfStatus, userMsg, type Binding } from './support/face-client';
import { itReplaysItsHistories, plannerSuite } from './support/suite';

const suite = plannerSuite('a2a-face-turns');
const face = faceWithAgents(suite, () => Promise.all([startCodeReviewer({ questions: 3, sameQuestion: true }), startDeployer()]));

type Status = NonNullable<Task['status']>;

/** One turn: the answer sent, and the status the call ended on (blocking: the task's; streaming: the last frame's). */
async function answer(client: SdkClient, mode: 'blocking' | 'streaming', task: Task, text: string): Promise<{ status: Status; messageId: string; history: Task['history'] }> {
  const msg = userMsg(text, { taskId: task.id, contextId: task.contextId });
  if (mode === 'blocking') {
    const t = (await client.sendMessage(sendReq(msg))) as Task;
    return { status: t.status!, messageId: msg.messageId, history: t.history };
  }
  const frames: StreamResponse[] = [];
  for await (const f of client.sendMessageStream(sendReq(msg))) {
    frames.push(f);
    // An approval holds the stream open (the task resumes by itself): the turn is over there.
    if (f.payload?.$case === 'statusUpdate' && f.payload.value.status?.state === TaskState.TASK_STATE_AUTH_REQUIRED) break;
  }
  expect(frames[0]!.payload?.$case).toBe('task');
  const last = frames.at(-1)!.payload!;
  const status = last.$case === 'statusUpdate' ? last.value.status! : (last.value as Task).status!;
  return { status, messageId: msg.messageId, history: [] };
}

describe.each([
  ['JSONRPC', 'blocking'],
  ['JSONRPC', 'streaming'],
  ['HTTP+JSON', 'blocking'],
  ['HTTP+JSON', 'streaming'],
] as Array<[Binding, 'blocking' | 'streaming']>)('over %s, %s', (binding, mode) => {
  it('an agent that asks three times on one task gets every answer; each call returns at the state after its answer', async () => {
    const client = await sdkClient(face.api.url, binding);
    const first = (await client.sendMessage(sendReq(userMsg('Release payments-api')))) as Task;
    suite.track(first.id, `${first.id}.review`);
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    let asked = first.status!;
    const answers = ['main', 'develop', 'release'];
    for (const [i, text] of answers.entries()) {
      const turn = await answer(client, mode, first, text);
      const expected = i < answers.length - 1 ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_AUTH_REQUIRED;
      expect({ answer: text, state: turn.status.state }).toEqual({ answer: text, state: expected });
      // A status recorded after this answer, not the question it answered.
      expect(turn.status.message?.messageId).not.toBe(asked.message?.messageId);
      if (expected === TaskState.TASK_STATE_INPUT_REQUIRED) {
        expect(textOfStatus({ status: turn.status })).toContain(BASE_BRANCH_QUESTION);
        expect((turn.status.message?.metadata as { turn?: number } | undefined)?.turn).toBe(i + 2);
      }
      if (turn.history?.length) {
        const ids = turn.history.map((m) => m.messageId);
        expect(ids.indexOf(turn.status.message!.messageId)).toBeGreaterThan(ids.indexOf(turn.messageId));
      }
      asked = turn.status;
    }
    suite.track(`${first.id}.deploy`);
    // The reviewer got the diff and each answer once, in order.
    const toReviewer = face.reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${first.id}.`));
    expect(toReviewer.map((m) => m.text.split('\n')[0])).toEqual(['Please review this diff of payments-api:', ...answers]);
    await client.cancelTask({ tenant: '', id: first.id, metadata: undefined });
  });
});

itReplaysItsHistories(suite);
