// The demo's run of the seed plan: start demo/plans/release.yaml, follow it, and play the two people
// it waits for: answer the reviewer's question (`main`) and approve the deploy at the URL the
// deployer gives, outside A2A. With `interactive`, the person at the keyboard does both.
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { followPlan } from '../client/follow-plan';
import { answerStep, startPlan, type PlanSnapshot } from '../client/plan';
import { outcome, transitions } from '../client/plan-progress';
import { SOURCE_ROOT } from '../runtime/source-root';

export const RELEASE_PLAN_FILE = join(SOURCE_ROOT, 'demo', 'plans', 'release.yaml');
/** What the simulated operator answers when the reviewer asks for the base branch. */
export const DEMO_ANSWER = 'main';

export interface DriveOptions {
  client: Client;
  taskQueue: string;
  /** Agent URLs replacing the plan's defaults (agents on other ports). */
  agentUrls?: Record<string, string>;
  interactive?: boolean;
  /** Reads the person's answer (interactive mode). */
  ask?: (question: string) => Promise<string>;
  out: (line: string) => void;
  /** Temporal UI base URL and namespace, for the plan's link. */
  uiUrl: string;
  namespace: string;
}

export async function driveDemo(o: DriveOptions): Promise<PlanSnapshot> {
  const { planId } = await startPlan(o.client, { planFile: RELEASE_PLAN_FILE }, { agentUrls: o.agentUrls }, { taskQueue: o.taskQueue });
  const link = `${o.uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(o.namespace)}/workflows/${encodeURIComponent(planId)}`;
  o.out(`started plan ${planId} (release: review a diff of payments-api, then deploy build 2026.10.06-1 to staging)`);
  o.out(`follow it in the Temporal UI: ${link}`);
  const handled = new Set<string>();
  let prev: PlanSnapshot | undefined;
  let last: PlanSnapshot | undefined;
  for await (const s of followPlan(o.client, planId)) {
    for (const line of transitions(prev, s)) o.out(line);
    prev = s;
    last = s;
    for (const st of s.steps ?? []) {
      const key = `${st.id}:${st.waitingOn}:${st.turn}`;
      if (st.state !== 'running' || (st.waitingOn !== 'human' && st.waitingOn !== 'operator') || handled.has(key)) continue;
      handled.add(key);
      if (st.waitingOn === 'human') {
        const text = o.interactive && o.ask ? await o.ask(`${st.agent} asks: ${st.text ?? ''}\nyour answer> `) : DEMO_ANSWER;
        if (!o.interactive) o.out(`operator (simulated): answers "${text}" on the same task (TASK_STATE_INPUT_REQUIRED → a new message, same taskId and contextId)`);
        const reply = await answerStep(o.client, planId, st.id, { text, from: o.interactive ? 'demo:person' : 'demo:simulated-operator' });
        o.out(`${st.agent} is now ${reply.state}`);
      } else {
        const url = /https?:\/\/\S+\/approve\/[^\s"']+/.exec(st.text ?? '')?.[0];
        if (!url) {
          o.out(`${st.agent} waits for an approval but gives no URL the demo can open: ${st.text ?? ''}`);
        } else if (o.interactive) {
          o.out(`open ${url} in a browser and press Approve: the approval travels outside A2A, and the planner sends nothing`);
        } else {
          o.out(`operator (simulated): approves at ${url} (outside A2A; the planner sends nothing and sees the task resume)`);
          const res = await fetch(url, { method: 'POST' });
          if (!res.ok) o.out(`the approval was refused: HTTP ${res.status} ${await res.text()}`);
        }
      }
    }
  }
  for (const line of outcome(last!, link)) o.out(line);
  return last!;
}
