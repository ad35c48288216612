/**
 * Real A2A test agents built with @a2a-js/sdk, served on loopback over
 * JSON-RPC and HTTP+JSON, recording what they receive.
 */
import { codeReviewerSpec } from './code-reviewer';
import { deployerSpec } from './deployer';
import { exporterSpec } from './exporter';
import { startAgent, type AgentHandle, type AgentOptions } from './server';

export type { AgentHandle, AgentOptions } from './server';
export type { AgentLog, Binding, RecordedMessage, RecordedRequest, RecordedSubscription } from './recorder';
export { BASE_BRANCH_QUESTION, MIGRATIONS_QUESTION, reviewerQuestion } from './code-reviewer';
export { parseVersion } from './deployer';
export { EXPORT_ARTIFACT, exportBytes } from './exporter';

/** questions (default 1): how many INPUT_REQUIRED turns before the review completes. */
export function startCodeReviewer(opts: AgentOptions & { questions?: number } = {}): Promise<AgentHandle> {
  const { questions = 1, ...agentOptions } = opts;
  return startAgent(codeReviewerSpec(questions), agentOptions);
}

/** authRounds (default 1): how many times the deploy stops in AUTH_REQUIRED, each needing its own approval. */
export function startDeployer(opts: AgentOptions & { authRounds?: number } = {}): Promise<AgentHandle> {
  const { authRounds = 1, ...agentOptions } = opts;
  return startAgent(deployerSpec(authRounds), agentOptions);
}

/** artifactBytes (default 1 KiB): the size of the one binary artifact, export.bin, it completes with. */
export function startExporter(opts: AgentOptions & { artifactBytes?: number } = {}): Promise<AgentHandle> {
  const { artifactBytes = 1024, ...agentOptions } = opts;
  return startAgent(exporterSpec(artifactBytes), agentOptions);
}
