// What every route needs: the Temporal client, the configuration, a logger, and the UI link rule.
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { PlannerConfig } from '../runtime/config';

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
