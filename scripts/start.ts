// `npm start`: the planner on the embedded default. Starts a dev server unless one answers at
// TEMPORAL_ADDRESS, runs the workers, and stops everything it started on Ctrl-C.
import { join } from 'node:path';
import { createLogger, installRuntime } from '../worker/logger';
import { loadConfig } from '../worker/config';
import { connectClient, temporalTarget } from '../worker/temporal-connection';
import { createPlannerWorkers } from '../worker/workers';
import { Client, type Connection } from '@temporalio/client';
import { startPushReceiver, type PushReceiver } from '../client/push-receiver';
import { payloadSettings, plannerDataConverter } from '../payloads/data-converter';
import { isServing, startDevServer, type DevServer } from './dev-server';

/** The Temporal UI base for alert links: PLANNER_UI_URL when set, else the UI this process started. */
export function uiUrlFor(env: NodeJS.ProcessEnv, startedUi: string | undefined, configured: string): string {
  if (env.PLANNER_UI_URL) return configured;
  return startedUi ?? configured;
}

/** Runs the planner (and a dev server when none answers) until SIGINT/SIGTERM. */
export async function startPlanner(): Promise<void> {
  let config = loadConfig();
  const logger = createLogger(config.PLANNER_LOG_LEVEL);
  let server: DevServer | undefined;
  if (!(await isServing(config.TEMPORAL_ADDRESS, process.env))) {
    const [ip, port] = config.TEMPORAL_ADDRESS.split(':');
    logger.info({ address: config.TEMPORAL_ADDRESS }, 'no Temporal server answers there; starting a dev server');
    server = await startDevServer({
      dbFile: join(process.cwd(), '.planner', 'temporal.sqlite'),
      logFile: join(process.cwd(), '.planner', 'temporal.log'),
      ip,
      port: Number(port),
      uiPort: Number(port) + 1000,
      log: (line) => logger.info(line),
    });
    logger.info({ address: server.address, ui: server.uiUrl }, 'Temporal dev server running (Temporal UI at the ui address)');
  }
  // Alerts link to the UI that is really there: the one just started, unless PLANNER_UI_URL says otherwise.
  config = { ...config, PLANNER_UI_URL: uiUrlFor(process.env, server?.uiUrl, config.PLANNER_UI_URL) };
  // Whatever fails from here on, stop what was started (a dev server must not outlive us).
  let receiver: PushReceiver | undefined;
  let receiverConnection: Connection | undefined;
  try {
    installRuntime(logger, { metricsAddress: config.PLANNER_METRICS_ADDRESS });
    const planner = await createPlannerWorkers(config, logger);
    if (config.PLANNER_WEBHOOK_SECRET && config.PLANNER_WEBHOOK_BASE_URL) {
      const [host, port] = config.PLANNER_WEBHOOK_LISTEN.split(':');
      const target = temporalTarget(config);
      receiverConnection = await connectClient(target);
      const temporal = new Client({ connection: receiverConnection, namespace: target.namespace, dataConverter: plannerDataConverter(payloadSettings(config)) });
      receiver = await startPushReceiver({ temporal, secret: config.PLANNER_WEBHOOK_SECRET, host, port: Number(port), logger });
      logger.info({ listen: receiver.url, publicUrl: config.PLANNER_WEBHOOK_BASE_URL }, 'push receiver running');
    }
    let stopping = false;
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.on(sig, () => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal: sig }, 'stopping the planner');
        planner.shutdown();
      });
    }
    logger.info({ taskQueue: config.PLANNER_TASK_QUEUE }, 'planner running; Ctrl-C stops it');
    await planner.run();
  } finally {
    await receiver?.close();
    await receiverConnection?.close();
    await server?.stop();
    logger.info('stopped');
  }
}

if (require.main === module) {
  startPlanner().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
