// `planner cluster down`: stops what `up` started, by recorded pid (planner processes first, then
// the UI and Temporal's services, frontend before history), then PostgreSQL with pg_ctl. Nothing
// else. Data stays in the cluster folder; the next `up` carries on with it.
import { postgresPaths, postgresPid, stopPostgres } from './postgres';
import { isOurs, readState, resolveOptions, stopProcess, writeState, type ClusterOptions } from './state';

const ORDER = ['serve-', 'worker-', 'temporal-ui', 'temporal-frontend', 'temporal-worker', 'temporal-matching', 'temporal-history'];
const rank = (name: string): number => {
  const i = ORDER.findIndex((p) => name.startsWith(p));
  return i === -1 ? ORDER.length : i;
};

export async function clusterDown(opts: ClusterOptions = {}): Promise<{ stopped: string[] }> {
  const o = resolveOptions(opts);
  const state = readState(o.dir);
  const stopped: string[] = [];
  if (state) {
    const procs = [...state.processes].sort((a, b) => rank(a.name) - rank(b.name));
    // Planner processes together (each drains within its grace period), then the rest in order.
    const planner = procs.filter((p) => rank(p.name) <= 1);
    await Promise.all(
      planner.map(async (p) => {
        if (await stopProcess(p, 40_000)) stopped.push(`${p.name} (pid ${p.pid})`);
      }),
    );
    for (const p of procs.filter((x) => rank(x.name) > 1)) {
      if (await stopProcess(p, 15_000)) stopped.push(`${p.name} (pid ${p.pid})`);
    }
    state.processes = state.processes.filter(isOurs);
  }
  const pg = postgresPaths(o.dir);
  const pgPid = postgresPid(pg);
  if (pgPid) {
    await stopPostgres(pg);
    stopped.push(`postgres (pid ${pgPid})`);
  }
  if (state) {
    state.postgres.pid = undefined;
    writeState(state);
  }
  o.log(stopped.length ? `Stopped: ${stopped.join(', ')}` : `Nothing of a cluster in ${o.dir} was running.`);
  return { stopped };
}
