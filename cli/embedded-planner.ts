// `planner dev` (and `npm start`): the whole planner in one process on the embedded default.
// A Temporal dev server unless one answers at TEMPORAL_ADDRESS, the workers, the push receiver when
// configured, and the demo agents; a banner once all is up. Ctrl-C stops what this process started,
// in reverse order (workers drain first); a second Ctrl-C forces.
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { startCodeReviewer, startDeployer, type AgentHandle } from '../demo/agents';
import { payloadSettings, plannerDataConverter } from '../payloads/data-converter';
import { isServing, startDevServer, type DevServer } from '../deploy/dev/dev-server';
import { ensureTemporalCli } from '../deploy/dev/temporal-cli';
import type { PlannerConfig } from '../runtime/config';
import { createLogger, installRuntime, logFormatFor } from '../runtime/logger';
import { bundlePlannerWorkflows } from '../worker/workflow-bundle';
import { connectClient as connectTemporal, temporalTarget } from '../runtime/temporal-connection';
import { tracingClientInterceptors } from '../runtime/temporal-tracing';
import { startTracing } from '../runtime/tracing';
import { createPlannerWorkers, type PlannerWorkers } from '../worker/workers';
import { startPushReceiver } from '../server/push/standalone';
import { formatBanner, type DevEndpoints } from './banner';
import { codecForStartedUi, settleCodecEndpoint } from './dev-codec';
import { CliFailure } from './errors';
import { handleInterrupts, Interrupted } from './interrupts';
import { err, withProgress } from './output';
import { configOrUsage } from './temporal';

export interface EmbeddedPlannerOptions {
  /** Start the demo agents (code-reviewer, deployer); `--no-agents` says false. */
  agents: boolean;
  /** Run the planner's workers (default); `planner demo` says false when a worker already polls the queue. */
  workers?: boolean;
  /** Serve the HTTP API (planner dev); `planner demo` needs none. */
  api?: boolean;
  /** Print the banner once all is up (planner dev); `planner demo` has its own story to tell. */
  banner?: boolean;
  /** Work to do once all is up (planner demo); when it ends, everything started here stops. */
  then?: (ctx: { temporal: Client; config: PlannerConfig; endpoints: DevEndpoints }) => Promise<void>;
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
    // The UI of a dev server started here decodes payloads through the API's codec (cli/dev-codec.ts).
    const codec = opts.api !== false ? await settleCodecEndpoint(config) : undefined;
    if (codec) config = codec.config;
    devServer = await startTemporalUnlessServing(config, logger, codec?.endpoint);
    if (devServer) started.push('Temporal dev server', devServer.stop);
    // Alerts link to the UI that is really there: the one just started, unless PLANNER_UI_URL says otherwise.
    config = { ...config, PLANNER_UI_URL: uiUrlFor(process.env, devServer?.uiUrl, config.PLANNER_UI_URL) };
    if (devServer?.uiUrl && codec) config = codecForStartedUi(config, process.env, devServer.uiUrl);
    interrupts.throwIfRequested();

    // Bundled here, quietly and once, instead of by Worker.create (which logs webpack's asset table).
    let running: Promise<void> | undefined;
    if (opts.workers !== false) {
      const workflowBundle = config.PLANNER_WORKFLOW_BUNDLE ? undefined : await withProgress('Bundling the workflows', bundlePlannerWorkflows);
      interrupts.throwIfRequested();
      installRuntime(logger, { metricsAddress: config.PLANNER_METRICS_ADDRESS });
      const planner = await createPlannerWorkers(config, logger, { workflowBundle });
      workers = planner;
      const run = planner.run();
      running = run;
      run.catch(() => undefined); // awaited below; a failure before then must not count as unhandled
      started.push('workers', async () => {
        planner.shutdown();
        await run;
      });
      interrupts.throwIfRequested();
    }

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

    if (opts.agents) {
      for (const agent of await startDemoAgents(config, started)) endpoints.agents.push({ name: agent.name, url: agent.baseUrl });
      interrupts.throwIfRequested();
    }

    // The planner's HTTP API: an operator token of this machine's own (it sees what the CLI starts)
    // unless PLANNER_API_TOKEN or PLANNER_API_OPERATOR_TOKEN gives the tokens.
    if (opts.api !== false) {
      const given = config.PLANNER_API_TOKEN?.length || config.PLANNER_API_OPERATOR_TOKEN?.length || config.PLANNER_API_INSECURE;
      const withToken = given ? config : { ...config, PLANNER_API_OPERATOR_TOKEN: [devApiToken()] };
      // Callers' plans may name the demo agents (registered agents), unless PLANNER_AGENTS names others.
      const demoAgents = Object.fromEntries(endpoints.agents.map((a) => [a.name, a.url]));
      const apiConfig = Object.keys(config.PLANNER_AGENTS).length === 0 && endpoints.agents.length > 0 ? { ...withToken, PLANNER_AGENTS: demoAgents } : withToken;
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- Express and the routes load only here
      const { startServer } = require('../server/main') as typeof import('../server/main');
      // The face's plans (demo/plans) name the demo agents at their default ports: point them at these.
      const faceAgentUrls = process.env.PLANNER_A2A_AGENT_URLS === undefined && endpoints.agents.length > 0 ? demoAgents : undefined;
      const api = await startServer({ config: apiConfig, temporal, logger, ...(faceAgentUrls ? { faceAgentUrls } : {}) }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EADDRINUSE') throw e;
        throw new CliFailure(`the planner API cannot listen on ${config.PLANNER_HOST}:${config.PLANNER_PORT}, which is in use: set PLANNER_PORT to a free port (0: any)`);
      });
      started.push('API server', () => api.close());
      endpoints.api = `${api.url}/v1${withToken === config ? '' : ` (token in ${DEV_TOKEN_FILE})`}`;
      interrupts.throwIfRequested();
    }

    if (opts.banner !== false) err(formatBanner(endpoints));
    logger.info({ address: config.TEMPORAL_ADDRESS, taskQueue: config.PLANNER_TASK_QUEUE, agents: endpoints.agents }, 'planner dev running');
    // The work ends first (then all stops), or the workers do (Ctrl-C, a fatal error).
    if (opts.then) await Promise.race([opts.then({ temporal, config, endpoints }), ...(running ? [running] : [])]);
    else if (running) await running;
    else throw new Error('runEmbeddedPlanner: nothing to run (no workers and no work)');
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

async function startTemporalUnlessServing(config: PlannerConfig, logger: Logger, codecEndpoint?: string): Promise<DevServer | undefined> {
  const address = config.TEMPORAL_ADDRESS;
  const [ip, port] = address.split(':');
  // Something listening there is never ours to replace: a busy server can take seconds to answer,
  // and a second dev server on its port would fail, or answer for the first one.
  if (await listening(ip!, Number(port))) {
    if (await isServing(address, 30_000, process.env)) {
      logger.info({ address }, 'a Temporal server answers there; using it (and leaving it running)');
      return undefined;
    }
    throw new CliFailure(`something listens at ${address} (TEMPORAL_ADDRESS) but does not answer as a Temporal server within 30 s: stop it, or set TEMPORAL_ADDRESS to a free port`);
  }
  const dir = join(process.cwd(), '.planner');
  // Found, or installed once (its own progress lines), before the start's line: that line then
  // stands for the server starting and nothing else.
  const temporalCli = await ensureTemporalCli(err);
  return withProgress(`Starting a Temporal dev server at ${address} (data in ${dir})`, () =>
    startDevServer({
      dbFile: join(dir, 'temporal.sqlite'),
      logFile: join(dir, 'temporal.log'),
      ip,
      port: Number(port),
      uiPort: Number(port) + 1000,
      ...(codecEndpoint ? { codecEndpoint } : {}),
      temporalCli,
      log: err, // a retry on other ports
    }),
  );
}

/** True when a TCP connection to ip:port is accepted. */
function listening(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: ip, port });
    socket.setTimeout(5000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function connectClient(config: PlannerConfig): Promise<Client> {
  const target = temporalTarget(config);
  const connection = await connectTemporal(target);
  // OTEL_* on: what this process starts (the demo's plans, the face's) is traced from its start.
  const interceptors = tracingClientInterceptors(startTracing(process.env, 'a2a-planner-dev'));
  return new Client({ connection, namespace: target.namespace, dataConverter: plannerDataConverter(payloadSettings(config)), ...(interceptors ? { interceptors } : {}) });
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

const DEV_TOKEN_FILE = join('.planner', 'api-token');

/** planner dev's API token: made once per working directory, kept in .planner/api-token (owner only). */
function devApiToken(): string {
  try {
    const token = readFileSync(DEV_TOKEN_FILE, 'utf8').trim();
    if (token.length >= 32) return token;
  } catch {
    // none yet
  }
  const token = randomBytes(24).toString('base64url');
  mkdirSync(dirname(DEV_TOKEN_FILE), { recursive: true });
  writeFileSync(DEV_TOKEN_FILE, `${token}\n`, { mode: 0o600 });
  return token;
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
