// `planner serve`: the HTTP API (and the push webhook) in one stateless process. Everything it
// serves is read from Temporal, so any number of replicas can run behind a load balancer.
// startServer is what `planner serve` and `planner dev` call; this file also runs on its own:
//   npx tsx server/main.ts        (PLANNER_HOST / PLANNER_PORT, default 127.0.0.1:8080)
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import { connectClient, temporalTarget } from '../runtime/temporal-connection';
import { tracingClientInterceptors } from '../runtime/temporal-tracing';
import { startTracing } from '../runtime/tracing';
import type { Logger } from 'pino';
import { payloadSettings, plannerDataConverter } from '../payloads/data-converter';
import { createLogger, installRuntime } from '../runtime/logger';
import { loadConfig, type PlannerConfig } from '../runtime/config';
import { createApp } from './app';
import { authSettings } from './auth';
import { uiLinker, type ApiContext } from './context';

export interface StartServerOptions {
  config: PlannerConfig;
  temporal: Client;
  logger: Logger;
  host?: string;
  /** 0: a free port. */
  port?: number;
  /** The agent base URLs the face's plans use, by agent name (default: PLANNER_A2A_AGENT_URLS). */
  faceAgentUrls?: Record<string, string>;
}

export interface RunningServer {
  /** http://host:port, without a trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** Builds the app and listens. Throws before listening when no API token is configured (and insecure mode is off). */
export async function startServer(opts: StartServerOptions): Promise<RunningServer> {
  const auth = authSettings(opts.config);
  const ctx: ApiContext = { config: opts.config, temporal: opts.temporal, logger: opts.logger, uiLink: uiLinker(opts.config) };
  if (auth.insecure) opts.logger.warn('PLANNER_API_INSECURE=1: the API accepts requests without a token');
  if (opts.config.PLANNER_CODEC_AUTH === 'none') opts.logger.warn("PLANNER_CODEC_AUTH=none: the Temporal UI's codec (/codec) decodes payloads for anyone who reaches it");
  // With a metrics endpoint, requests are counted on it through the Temporal runtime's meter
  // (installed by main() here, or by the workers in planner dev).
  const metricMeter = opts.config.PLANNER_METRICS_ADDRESS ? Runtime.instance().metricMeter : undefined;
  const app = createApp(ctx, { auth, pushSecret: opts.config.PLANNER_WEBHOOK_SECRET, ...(opts.faceAgentUrls ? { faceAgentUrls: opts.faceAgentUrls } : {}), ...(metricMeter ? { metricMeter } : {}) });
  const host = opts.host ?? opts.config.PLANNER_HOST;
  const port = opts.port ?? opts.config.PLANNER_PORT;
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  });
  // An idle keep-alive connection or an open event stream must not hold a shutdown.
  server.keepAliveTimeout = 5000;
  const { address, port: bound } = server.address() as AddressInfo;
  const shownHost = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shownHost}:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The runnable entry: configuration from the environment, a Temporal client, the server, stop on SIGINT/SIGTERM. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  authSettings(config); // refuse to start without a token before connecting anywhere
  const logger = createLogger(config.PLANNER_LOG_LEVEL);
  // PLANNER_METRICS_ADDRESS: this process's own Prometheus endpoint (API requests by route and status).
  if (config.PLANNER_METRICS_ADDRESS) installRuntime(logger, { metricsAddress: config.PLANNER_METRICS_ADDRESS, service: 'a2a-planner-api' });
  const target = temporalTarget(config, env);
  const connection = await connectClient(target);
  // OTEL_* turn tracing on (docs/tracing.md): the plans this server starts continue its callers' traces.
  const tracing = startTracing(env, 'a2a-planner-server');
  const interceptors = tracingClientInterceptors(tracing);
  const temporal = new Client({ connection, namespace: target.namespace, dataConverter: plannerDataConverter(payloadSettings(config)), interceptors });
  const server = await startServer({ config, temporal, logger });
  logger.info({ url: server.url, temporal: target.describe }, 'planner API listening');
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping the planner API');
    void server
      .close()
      .then(() => connection.close())
      .then(() => tracing?.flush())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
