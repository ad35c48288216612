// `planner dev` (and `npm start`): the whole planner in one process on the embedded default.
// A Temporal dev server unless one answers at TEMPORAL_ADDRESS, the workers, the push receiver when
// configured, and the demo agents; a banner once all is up. Ctrl-C stops what this process started,
// in reverse order (workers drain first); a second Ctrl-C forces.
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { startCodeReviewer, startDeployer, type AgentHandle } from '../../demo/agents';
import { payloadSettings, plannerDataConverter } from '../../payloads/data-converter';
import { isServing, startDevServer, type DevServer } from '../../scripts/dev-server';
import type { PlannerConfig } from '../../worker/config';
import { createLogger, installRuntime, logFormatFor } from '../../worker/logger';
import { bundlePlannerWorkflows } from '../../worker/workflow-bundle';
import { createPlannerWorkers, type PlannerWorkers } from '../../worker/workers';
import { startPushReceiver } from '../push-receiver';
import { formatBanner, type DevEndpoints } from './banner';
import { CliFailure } from './errors';
import { handleInterrupts, Interrupted } from './interrupts';
import { err, withProgress } from './output';
import { configOrUsage } from './temporal';

export interface EmbeddedPlannerOptions {
  /** Start the demo agents (code-reviewer, deployer); `--no-agents` says false. */
  agents: boolean;
}

/** The Temporal UI base for alert links: PLANNER_UI_URL when set, else the UI this process started. */
export function uiUrlFor(env: NodeJS.ProcessEnv, startedUi: string | undefined, configured: string): string {
  if (env.PLANNER_UI_URL) return configured;
  return startedUi ?? configured;
}

/** Runs until SIGINT/SIGTERM (or a fatal error), then stops everything it started. */
export async function runEmbeddedPlanner(opts: EmbeddedPlannerOptions): Promise<void> {
  let config = configOrUsage();
  const logger = createLogger(config.PLANNER_LOG_LEVEL, logFormatFor(config.PLANNER_LOG_FORMAT));
  const started = new StartedHere(logger);
  let devServer: DevServer | undefined;
  let workers: PlannerWorkers | undefined;
  const interrupts = handleInterrupts({
    graceful: (signal) => {
      err(`${signal}: stopping what planner dev started (Ctrl-C again to force)`);
      workers?.shutdown(); // the rest stops once they have drained
    },
    forced: (signal) => {
      // Everything else lives in this process and ends with it; the dev server is a child of ours.
      if (devServer) killQuietly(devServer.pid);
      err(`${signal} again: forced exit`);
      process.exit(130);
    },
  });
  try {
    devServer = await startTemporalUnlessServing(config, logger);
    if (devServer) started.push('Temporal dev server', devServer.stop);
    // Alerts link to the UI that is really there: the one just started, unless PLANNER_UI_URL says otherwise.
    config = { ...config, PLANNER_UI_URL: uiUrlFor(process.env, devServer?.uiUrl, config.PLANNER_UI_URL) };
    interrupts.throwIfRequested();

    // Bundled here, quietly and once, instead of by Worker.create (which logs webpack's asset table).
    const workflowBundle = config.PLANNER_WORKFLOW_BUNDLE ? undefined : await withProgress('Bundling the workflows', bundlePlannerWorkflows);
    interrupts.throwIfRequested();
    installRuntime(logger);
    const planner = await createPlannerWorkers(config, logger, { workflowBundle });
    workers = planner;
    const running = planner.run();
    running.catch(() => undefined); // awaited below; a failure before then must not count as unhandled
    started.push('workers', async () => {
      planner.shutdown();
      await running;
    });
    interrupts.throwIfRequested();

    // One client for what serves HTTP in this process: the push receiver, and the API when it lands.
    const temporal = await connectClient(config);
    started.push('Temporal client', () => temporal.connection.close());

    const endpoints: DevEndpoints = {
      temporalAddress: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.PLANNER_TASK_QUEUE,
      temporalUi: config.PLANNER_UI_URL,
      startedTemporal: devServer !== undefined,
      agents: [],
    };
    if (config.PLANNER_WEBHOOK_SECRET && config.PLANNER_WEBHOOK_BASE_URL) {
      const [host, port] = config.PLANNER_WEBHOOK_LISTEN.split(':');
      const receiver = await startPushReceiver({ temporal, secret: config.PLANNER_WEBHOOK_SECRET, host, port: Number(port), logger });
      started.push('push receiver', () => receiver.close());
      logger.info({ listen: receiver.url, publicUrl: config.PLANNER_WEBHOOK_BASE_URL }, 'push receiver running');
      endpoints.pushReceiver = receiver.url;
    }
    interrupts.throwIfRequested();

    // ---- The planner's HTTP API (server/, from its own branch) starts here, with one call: ----
    //   const api = await startServer({ temporal, config, logger });
    //   started.push('API server', () => api.close());
    //   endpoints.api = api.url;
    // ------------------------------------------------------------------------------------------

    if (opts.agents) {
      for (const agent of await startDemoAgents(config, started)) endpoints.agents.push({ name: agent.name, url: agent.baseUrl });
      interrupts.throwIfRequested();
    }

    err(formatBanner(endpoints));
    logger.info({ address: config.TEMPORAL_ADDRESS, taskQueue: config.PLANNER_TASK_QUEUE, agents: endpoints.agents }, 'planner dev running');
    await running;
  } catch (e) {
    // After a Ctrl-C, a step that failed because of it (a terminal's Ctrl-C reaches the Temporal
    // CLI or its build too) is part of stopping, not a failure of planner dev.
    if (!(e instanceof Interrupted) && !interrupts.requested) throw e;
    if (!(e instanceof Interrupted)) logger.debug({ err: e }, 'a start-up step ended by the interrupt');
  } finally {
    await started.stopAll();
    logger.info('stopped');
    interrupts.dispose();
  }
}

async function startTemporalUnlessServing(config: PlannerConfig, logger: Logger): Promise<DevServer | undefined> {
  if (await isServing(config.TEMPORAL_ADDRESS)) {
    logger.info({ address: config.TEMPORAL_ADDRESS }, 'a Temporal server answers there; using it (and leaving it running)');
    return undefined;
  }
  const [ip, port] = config.TEMPORAL_ADDRESS.split(':');
  const dir = join(process.cwd(), '.planner');
  return withProgress(`Starting a Temporal dev server at ${config.TEMPORAL_ADDRESS} (data in ${dir})`, () =>
    startDevServer({
      dbFile: join(dir, 'temporal.sqlite'),
      logFile: join(dir, 'temporal.log'),
      ip,
      port: Number(port),
      uiPort: Number(port) + 1000,
      log: err, // progress of the one-time Temporal CLI build
    }),
  );
}

async function connectClient(config: PlannerConfig): Promise<Client> {
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: plannerDataConverter(payloadSettings(config)) });
}

/** The demo's agents on their configured ports; a port in use is an error that says what to do. */
async function startDemoAgents(config: PlannerConfig, started: StartedHere): Promise<AgentHandle[]> {
  const agents: Array<[name: string, variable: string, start: () => Promise<AgentHandle>]> = [
    ['code-reviewer', 'PLANNER_DEMO_REVIEWER_PORT', () => startCodeReviewer({ port: config.PLANNER_DEMO_REVIEWER_PORT })],
    ['deployer', 'PLANNER_DEMO_DEPLOYER_PORT', () => startDeployer({ port: config.PLANNER_DEMO_DEPLOYER_PORT })],
  ];
  const handles: AgentHandle[] = [];
  for (const [name, variable, start] of agents) {
    let agent: AgentHandle;
    try {
      agent = await start();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      const port = variable === 'PLANNER_DEMO_REVIEWER_PORT' ? config.PLANNER_DEMO_REVIEWER_PORT : config.PLANNER_DEMO_DEPLOYER_PORT;
      throw new CliFailure(`the ${name} demo agent cannot listen on 127.0.0.1:${port}, which is in use (another planner dev?): set ${variable} to a free port (0: any), or run with --no-agents`);
    }
    started.push(`${name} agent`, () => agent.close());
    handles.push(agent);
  }
  return handles;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** What this process started, stopped in reverse order; one failing stop does not keep the others running. */
class StartedHere {
  private readonly stops: Array<{ what: string; stop: () => Promise<void> }> = [];

  constructor(private readonly logger: Logger) {}

  push(what: string, stop: () => Promise<void>): void {
    this.stops.push({ what, stop });
  }

  async stopAll(): Promise<void> {
    for (const { what, stop } of this.stops.splice(0).reverse()) {
      try {
        await stop();
        this.logger.debug({ what }, 'stopped');
      } catch (e) {
        this.logger.error({ err: e, what }, `stopping the ${what} failed`);
      }
    }
  }
}
