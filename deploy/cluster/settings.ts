// The one place that says what a production-shaped planner stack is made of: versions, ports,
// databases, the namespace, the search attributes and the planner's environment. `planner cluster
// up` (deploy/cluster/up.ts) builds from it, and test/deploy-compose.test.ts checks that
// docker-compose.yml says the same.
import { plannerSearchAttributes, SEARCH_ATTRIBUTE_TYPE_NAMES } from '../../workflows/search-attributes';

/** The Temporal server, as bundled by the CLI v1.5.1 the dev server runs (same persistence schema). */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
/** The Temporal UI server the CLI v1.5.1 embeds (github.com/temporalio/ui-server/v2). */
export const TEMPORAL_UI_VERSION = '2.42.1';
/** PostgreSQL major version (Debian's postgresql-15 here; the postgres:15 image in Docker). */
export const POSTGRES_MAJOR = 15;
/** The server's SQL plugin for PostgreSQL >= 12. */
export const SQL_PLUGIN = 'postgres12';

export const DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility' } as const;
/** Schema folders in the server module, relative to its root, by database. */
export const SCHEMA_DIRS = {
  temporal: 'schema/postgresql/v12/temporal/versioned',
  visibility: 'schema/postgresql/v12/visibility/versioned',
} as const;
export const DB_USER = 'temporal';
export const NAMESPACE = 'default';
/** How long closed workflows stay (the namespace's retention). */
export const NAMESPACE_RETENTION = '72h';
/** History shards: fixed for a cluster's life (changing it needs a new database). */
export const NUM_HISTORY_SHARDS = 4;

/** The planner's search attributes with the type names `temporal operator search-attribute create --type` takes. */
export const SEARCH_ATTRIBUTES: ReadonlyArray<{ name: string; type: string }> = plannerSearchAttributes.map((k) => ({
  name: k.name,
  type: SEARCH_ATTRIBUTE_TYPE_NAMES[k.type]!,
}));

export const TEMPORAL_SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];

/** Dynamic config every cluster runs with (the same keys as the dev server needs for SDK 1.24). */
export const DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  // SDK 1.24 sends worker heartbeats; the server rejects them unless this is on.
  'frontend.WorkerHeartbeatsEnabled': true,
  // Updates (answers) and update-with-start: on by default in 1.29.1, stated for clarity.
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted': true,
  // A new search attribute is visible to the next request, not after a cache refresh.
  'system.forceSearchAttributesCacheRefreshOnRead': true,
  // The activity a workflow task schedules comes back in that task's reply to the worker that asked
  // (eager dispatch): no matching round trip. Off by default in 1.29.1; as on the dev server.
  'system.enableActivityEagerExecution': true,
};

/** Ports of one local cluster; all on loopback, none of them the dev server's 7233/8233. */
export interface ClusterPorts {
  postgres: number;
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  /** Membership (ringpop) port of each service is its gRPC port + MEMBERSHIP_OFFSET. */
  ui: number;
  /** Server metrics: one Prometheus port per service, from this one up (frontend, history, matching, worker). */
  serverMetrics: number;
  /** Planner worker i exposes Prometheus metrics on workerMetrics + i. */
  workerMetrics: number;
  /** `planner serve` replica i listens on serve + i. */
  serve: number;
}

export const MEMBERSHIP_OFFSET = 100;

export const DEFAULT_PORTS: ClusterPorts = {
  postgres: 17432,
  frontend: 17233,
  frontendHttp: 17243,
  history: 17234,
  matching: 17235,
  worker: 17239,
  ui: 18233,
  serverMetrics: 17800,
  workerMetrics: 19464,
  serve: 18080,
};

/** Environment variables that override a port, by port. */
export const PORT_ENV: Record<keyof ClusterPorts, string> = {
  postgres: 'PLANNER_CLUSTER_PG_PORT',
  frontend: 'PLANNER_CLUSTER_FRONTEND_PORT',
  frontendHttp: 'PLANNER_CLUSTER_FRONTEND_HTTP_PORT',
  history: 'PLANNER_CLUSTER_HISTORY_PORT',
  matching: 'PLANNER_CLUSTER_MATCHING_PORT',
  worker: 'PLANNER_CLUSTER_INTERNAL_WORKER_PORT',
  ui: 'PLANNER_CLUSTER_UI_PORT',
  serverMetrics: 'PLANNER_CLUSTER_SERVER_METRICS_PORT',
  workerMetrics: 'PLANNER_CLUSTER_WORKER_METRICS_PORT',
  serve: 'PLANNER_CLUSTER_SERVE_PORT',
};

/** The other settings' environment variables. */
export const CLUSTER_ENV = {
  dir: 'PLANNER_CLUSTER_DIR',
  workers: 'PLANNER_CLUSTER_WORKERS',
  servers: 'PLANNER_CLUSTER_SERVERS',
  pgPassword: 'PLANNER_CLUSTER_PG_PASSWORD',
  ui: 'PLANNER_CLUSTER_UI', // "off" skips the UI
} as const;

export const DEFAULT_WORKERS = 2;
export const DEFAULT_SERVERS = 0;

/**
 * What every planner process of a deployment (worker and `planner serve`) is given, besides its
 * own address settings. docker-compose.yml's worker and serve services set the same names.
 */
export function plannerProcessEnv(o: { frontend: string; blobDir: string; bundle?: string; uiUrl?: string }): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: o.frontend,
    TEMPORAL_NAMESPACE: NAMESPACE,
    PLANNER_TASK_QUEUE: 'planner',
    PLANNER_BLOB_DIR: o.blobDir,
    ...(o.bundle ? { PLANNER_WORKFLOW_BUNDLE: o.bundle } : {}),
    ...(o.uiUrl ? { PLANNER_UI_URL: o.uiUrl } : {}),
  };
}

/** Names every planner worker of a deployment gets (values differ per host); compose sets them all. */
export const WORKER_ENV_NAMES = ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'PLANNER_TASK_QUEUE', 'PLANNER_BLOB_DIR', 'PLANNER_WORKFLOW_BUNDLE', 'PLANNER_UI_URL', 'PLANNER_METRICS_ADDRESS', 'PLANNER_SHUTDOWN_GRACE'] as const;
