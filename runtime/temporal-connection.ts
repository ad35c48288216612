// How every planner process reaches Temporal: Temporal's standard client configuration
// (@temporalio/envconfig: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*,
// TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE and its profiles, TEMPORAL_GRPC_META_*), with the planner's
// own config (runtime/config.ts) as the fallback for the address and the namespace. One function,
// used by the worker, the CLI, the push receiver, `planner serve` and the scripts, so that a
// deployment on Temporal Cloud (API key or mTLS) needs nothing but the standard variables.
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnection, NativeConnectionOptions } from '@temporalio/worker';
import type { PlannerConfig } from './config';
import { closedConnectionGuard } from './closed-connection-guard';

export interface TemporalTarget {
  /** For Connection.connect and NativeConnection.connect (address, TLS, API key, gRPC metadata). */
  connectionOptions: NativeConnectionOptions & { address: string };
  namespace: string;
  /** Where the settings came from, for logs and errors (never the key itself). */
  describe: string;
}

/**
 * The connection options and namespace for this process. `env` is the environment the planner
 * config was read from (default process.env); an explicit TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE
 * there wins, then the active profile of the Temporal config file, then the planner's defaults.
 */
export function temporalTarget(config: Pick<PlannerConfig, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>, env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  const vars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
  let loaded;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: vars });
  } catch (e) {
    throw new Error(`invalid Temporal client configuration (TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE / TEMPORAL_TLS_*): ${(e as Error).message}`);
  }
  const opts = loaded.connectionOptions;
  const address = vars.TEMPORAL_ADDRESS ? config.TEMPORAL_ADDRESS : (opts.address ?? config.TEMPORAL_ADDRESS);
  const namespace = vars.TEMPORAL_NAMESPACE ? config.TEMPORAL_NAMESPACE : (loaded.namespace ?? config.TEMPORAL_NAMESPACE);
  const connectionOptions: TemporalTarget['connectionOptions'] = { address };
  if (opts.tls !== undefined && opts.tls !== false) connectionOptions.tls = opts.tls;
  if (opts.apiKey) connectionOptions.apiKey = opts.apiKey;
  if (opts.metadata && Object.keys(opts.metadata).length > 0) connectionOptions.metadata = opts.metadata;
  const extras = [connectionOptions.tls ? 'TLS' : undefined, connectionOptions.apiKey ? 'API key' : undefined, vars.TEMPORAL_PROFILE ? `profile ${vars.TEMPORAL_PROFILE}` : undefined].filter(Boolean);
  return { connectionOptions, namespace, describe: `${address} namespace ${namespace}${extras.length ? ` (${extras.join(', ')})` : ''}` };
}

/** A client Connection (CLI, API, push receiver, activities' client). */
export async function connectClient(target: TemporalTarget, extra: Omit<ConnectionOptions, 'address' | 'tls' | 'apiKey'> = {}): Promise<Connection> {
  const { metadata, ...rest } = target.connectionOptions;
  // A retry pending at the close must not throw in its timer (closed-connection-guard.ts).
  const closing = closedConnectionGuard();
  const interceptors = [...(extra.interceptors ?? []), ...closing.interceptors];
  const connection = await Connection.connect({ ...rest, ...extra, interceptors, metadata: { ...metadata, ...extra.metadata } } as ConnectionOptions);
  return closing.guard(connection);
}

/** A worker's NativeConnection. */
export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  // Loaded here, not at the top: the CLI and the API reach Temporal through this file too, and the
  // worker package (its bundler, its native core) is a quarter of a second to load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- import() would bypass tsx's CommonJS hook
  const { NativeConnection } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  return NativeConnection.connect(target.connectionOptions);
}

const UNAVAILABLE_CODES = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */, 8 /* RESOURCE_EXHAUSTED */]);

/**
 * When `err` says Temporal itself cannot serve right now (its frontend unreachable, or a service or
 * its database behind it down), a sentence saying so; otherwise undefined. For the CLI and the API.
 */
export function temporalUnavailable(err: unknown, where: string): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    // While its database restarts, a frontend answers NotFound for a namespace it cannot read.
    if ((e as Error).name === 'NamespaceNotFoundError') {
      return `Temporal at ${where} cannot serve the namespace right now (${(e as Error).message}): it does not exist there, or the server cannot read its database (restarting?); try again shortly`;
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && UNAVAILABLE_CODES.has(code)) {
      const detail = ((e as Error).message ?? '').split('\n')[0]!.slice(0, 200);
      return `Temporal at ${where} is unavailable right now (${detail}); nothing recorded is lost: try again when it is back`;
    }
  }
  return undefined;
}
