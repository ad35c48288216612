// The fault suite's driver, shared by `npm run chaos` (chaos/main.ts) and test/chaos.test.ts: one
// environment, one worker process, the faults in turn, a table of figures.
import { startChaosEnv, type WorkerProcess } from './env';
import { table, type Figures } from './figures';
import { proxyFaults } from './proxy-faults';
import { PROXY_MODES, type ProxyMode } from './proxy';
import { workerKills } from './worker-kills';
import { serverRestart } from './server-restart';
import { agentRestart } from './agent-restart';

export const FAULTS = ['proxy', 'kill', 'restart', 'agent'] as const;
export type Fault = (typeof FAULTS)[number];

export interface ChaosOptions {
  only: Fault[];
  seed: number;
  /** Seed-plan runs per proxy mode, and the modes (CHAOS_PROXY_MODES, default all). */
  proxyRuns: number;
  proxyModes: ProxyMode[];
  /** Seed-plan runs across which the worker is killed, how many at once, and at most how many kills. */
  killRuns: number;
  killConcurrency: number;
  maxKills: number;
  /** After a kill point is reached, a further random wait of up to this many ms. */
  killJitterMs: number;
  /** Plans per kind of wait across the server restart, and how long the server stays down. */
  restartPairs: number;
  serverDownMs: number;
  /** How long a lost task may take to end its step. */
  lostBoundMs: number;
  /** Bound on any one seed run. */
  perRunMs: number;
  /** A prebuilt workflow bundle (the jest run's); built otherwise. */
  bundle?: string;
  log: (line: string) => void;
}

/** Sizes at CHAOS_SCALE 1 (the default of `npm run chaos`); every count scales, bounds do not. */
export function chaosOptions(env: NodeJS.ProcessEnv = process.env, log: (line: string) => void = (l) => console.error(l)): ChaosOptions {
  const scale = Number(env.CHAOS_SCALE ?? 1);
  if (!(scale > 0 && scale <= 10)) throw new Error(`CHAOS_SCALE must be a number in (0, 10], got ${env.CHAOS_SCALE}`);
  const only = (env.CHAOS_ONLY ? env.CHAOS_ONLY.split(',') : [...FAULTS]) as Fault[];
  for (const f of only) if (!FAULTS.includes(f)) throw new Error(`CHAOS_ONLY: unknown fault ${JSON.stringify(f)} (known: ${FAULTS.join(', ')})`);
  const seed = env.CHAOS_SEED ? Number(env.CHAOS_SEED) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isInteger(seed)) throw new Error(`CHAOS_SEED must be an integer, got ${env.CHAOS_SEED}`);
  const proxyModes = (env.CHAOS_PROXY_MODES ? env.CHAOS_PROXY_MODES.split(',') : [...PROXY_MODES]) as ProxyMode[];
  for (const m of proxyModes) if (!PROXY_MODES.includes(m as (typeof PROXY_MODES)[number])) throw new Error(`CHAOS_PROXY_MODES: unknown mode ${JSON.stringify(m)} (known: ${PROXY_MODES.join(', ')})`);
  const n = (x: number): number => Math.max(1, Math.round(x * scale));
  return {
    only,
    seed,
    proxyRuns: n(4),
    proxyModes,
    killRuns: n(50),
    killConcurrency: Math.min(10, n(5)),
    maxKills: n(10),
    killJitterMs: 1000,
    restartPairs: n(1),
    serverDownMs: 2000,
    lostBoundMs: 60_000,
    perRunMs: 240_000,
    log,
  };
}

export async function runChaos(o: ChaosOptions): Promise<Figures[]> {
  const t0 = Date.now();
  o.log(`chaos: faults ${o.only.join(', ')}, CHAOS_SEED=${o.seed}`);
  const env = await startChaosEnv({ log: o.log, bundle: o.bundle });
  const figures: Figures[] = [];
  const worker: { current?: WorkerProcess } = {};
  // A hard bound on the whole run: past it, the processes go and the run fails.
  const limitMs = 20 * 60_000;
  const watchdog = setTimeout(() => {
    o.log(`chaos: still running after ${limitMs / 1000} s; stopping`);
    void worker.current?.kill('SIGKILL');
    void env.close().finally(() => process.exit(2));
  }, limitMs);
  watchdog.unref();
  try {
    worker.current = await env.startWorker();
    const w = worker as { current: WorkerProcess };
    const step = async (name: Fault, fn: () => Promise<Figures | Figures[]>): Promise<void> => {
      if (!o.only.includes(name)) return;
      o.log(`chaos: ${name}...`);
      const f = await fn();
      figures.push(...(Array.isArray(f) ? f : [f]));
    };
    await step('proxy', () => proxyFaults(env, { runsPerMode: o.proxyRuns, modes: o.proxyModes, seed: o.seed, perRunMs: o.perRunMs }));
    await step('kill', () => workerKills(env, w, { runs: o.killRuns, concurrency: o.killConcurrency, maxKills: o.maxKills, jitterMs: o.killJitterMs, seed: o.seed, perRunMs: o.perRunMs }));
    await step('restart', () => serverRestart(env, { pairs: o.restartPairs, downMs: o.serverDownMs, perRunMs: o.perRunMs }));
    await step('agent', () => agentRestart(env, { boundMs: o.lostBoundMs, perRunMs: o.perRunMs }));
  } finally {
    await worker.current?.kill('SIGTERM');
    await env.close();
    clearTimeout(watchdog);
  }
  o.log(`chaos: done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return figures;
}

export { table };
