/**
 * The demo's A2A agents (the seed's code-reviewer and deployer), built with @a2a-js/sdk and served
 * on loopback over JSON-RPC and HTTP+JSON, recording what they receive. `planner dev` and
 * `planner demo` run them; the test suites use them as real protocol peers.
 */
import { codeReviewerSpec } from './code-reviewer';
import { deployerSpec } from './deployer';
import { startAgent, type AgentHandle, type AgentOptions } from './server';

export type { AgentBehaviour, AgentHandle, AgentOptions, AgentSpec } from './server';
export { startAgent } from './server';
export { skill } from './card';
export { artifactEvent, statusEvent, submittedTask, textOf } from './messages';
export type { AgentLog, Binding, RecordedMessage, RecordedRequest, RecordedSubscription } from './recorder';
export { BASE_BRANCH_QUESTION, MIGRATIONS_QUESTION, reviewerQuestion } from './code-reviewer';
export { parseVersion } from './deployer';

/**
 * questions (default 1): how many INPUT_REQUIRED turns before the review completes.
 * workMs (default 0): simulated work before each answer the agent gives (each question, the review).
 * sameQuestion (default false): every turn asks the first question again, word for word.
 */
export function startCodeReviewer(opts: AgentOptions & { questions?: number; workMs?: number; sameQuestion?: boolean } = {}): Promise<AgentHandle> {
  const { questions = 1, workMs = 0, sameQuestion = false, ...agentOptions } = opts;
  return startAgent(codeReviewerSpec(questions, workMs, sameQuestion), agentOptions);
}

/**
 * authRounds (default 1): how many times the deploy stops in AUTH_REQUIRED, each needing its own approval.
 * workMs (default 0): simulated work before each step (each approval request, the deploy itself).
 * sameApprovalText (default false): every round asks in the same words (no "approval n of m").
 * approvalNote (default none): appended to every approval request (long status texts).
 */
export function startDeployer(opts: AgentOptions & { authRounds?: number; workMs?: number; sameApprovalText?: boolean; approvalNote?: string } = {}): Promise<AgentHandle> {
  const { authRounds = 1, workMs = 0, sameApprovalText = false, approvalNote = '', ...agentOptions } = opts;
  return startAgent(deployerSpec(authRounds, workMs, sameApprovalText, approvalNote), agentOptions);
}

