// What every route needs: the Temporal client, the configuration, a logger, and the UI link rule.
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { PlannerConfig } from '../runtime/config';
import type { PlanTrust } from '../plans/caller-agents';

export interface ApiContext {
  config: PlannerConfig;
  temporal: Client;
  logger: Logger;
  /** The workflow's page in the Temporal UI: PLANNER_UI_URL + /namespaces/<ns>/workflows/<id>. */
  uiLink(workflowId: string): string;
}

export function uiLinker(config: Pick<PlannerConfig, 'PLANNER_UI_URL' | 'TEMPORAL_NAMESPACE'>): (workflowId: string) => string {
  const base = config.PLANNER_UI_URL.replace(/\/$/, '');
  const ns = encodeURIComponent(config.TEMPORAL_NAMESPACE);
  return (workflowId) => `${base}/namespaces/${ns}/workflows/${encodeURIComponent(workflowId)}`;
}

/**
 * What a plan that reached the server may name: who wrote its document and its agentUrls (the
 * operator's plan files, or a caller's body or data part), and the operator's PLANNER_AGENTS and
 * PLANNER_CALLER_AGENTS (plans/caller-agents.ts).
 */
export function planTrust(
  config: Pick<PlannerConfig, 'PLANNER_AGENTS' | 'PLANNER_CALLER_AGENTS'>,
  document: PlanTrust['document'],
  agentUrls: PlanTrust['agentUrls'],
): PlanTrust {
  return { callerAgents: config.PLANNER_CALLER_AGENTS, registered: config.PLANNER_AGENTS, document, agentUrls };
}
