// `planner cluster status`: what the cluster folder says runs, whether each process is alive, and
// whether it answers (PostgreSQL, the frontend and the planner's pollers, the UI, worker metrics, API).
import { Client } from '@temporalio/client';
import { connectClient, temporalTarget } from '../../runtime/temporal-connection';
import { postgresPaths, postgresPid, postgresReady } from './postgres';
import { NAMESPACE } from './settings';
import { isOurs, readState, resolveOptions, type ClusterOptions } from './state';
import { tcpAnswers } from './temporal';
import { httpAnswers } from './up';

export interface PartStatus {
  name: string;
  pid?: number;
  running: boolean;
  answers: boolean;
  detail?: string;
}

export interface ClusterStatus {
  dir: string;
  up: boolean;
  parts: PartStatus[];
  notes: string[];
}


async function pollers(frontend: string): Promise<string | undefined> {
  try {
    const target = temporalTarget({ TEMPORAL_ADDRESS: frontend, TEMPORAL_NAMESPACE: NAMESPACE }, {});
    const connection = await connectClient(target, { connectTimeout: 2000 });
    try {
      const client = new Client({ connection, namespace: NAMESPACE });
      const counts: string[] = [];
      for (const queue of ['planner', 'planner-watch']) {
        const r = await client.workflowService.describeTaskQueue({ namespace: NAMESPACE, taskQueue: { name: queue }, taskQueueType: queue === 'planner' ? 1 : 2 });
        counts.push(`${queue}: ${r.pollers?.length ?? 0} pollers`);
      }
      return counts.join(', ');
    } finally {
      await connection.close();
    }
  } catch {
    return undefined;
  }
}

export async function clusterStatus(opts: ClusterOptions = {}): Promise<ClusterStatus> {
  const o = resolveOptions(opts);
  const state = readState(o.dir);
  if (!state) {
    o.log(`No cluster in ${o.dir} (\`planner cluster up\` starts one).`);
    return { dir: o.dir, up: false, parts: [], notes: [] };
  }
  const parts: PartStatus[] = [];
  const pgPid = postgresPid(postgresPaths(o.dir));
  parts.push({ name: 'postgres', pid: pgPid, running: pgPid !== undefined, answers: await postgresReady(state.postgres.port), detail: `127.0.0.1:${state.postgres.port}` });
  for (const p of state.processes) {
    const running = isOurs(p);
    let answers = false;
    let detail = p.url;
    if (p.name === 'temporal-frontend') {
      const polled = running ? await pollers(state.frontend) : undefined;
      answers = polled !== undefined;
      if (polled) detail = `${p.url} (${polled})`;
    } else if (p.name.startsWith('temporal-') && p.name !== 'temporal-ui') {
      answers = running && p.url !== undefined && (await tcpAnswers(p.url));
    } else if (p.url) {
      answers = running && (await httpAnswers(p.url));
    }
    parts.push({ name: p.name, pid: p.pid, running, answers, ...(detail ? { detail } : {}) });
  }
  const up = parts.every((p) => p.running && p.answers);
  o.log(`Cluster in ${o.dir}, started ${state.startedAt}: ${up ? 'everything runs and answers' : 'NOT everything runs'}`);
  for (const p of parts) {
    o.log(`  ${p.name.padEnd(18)} ${p.running ? `running (pid ${p.pid})` : 'stopped'.padEnd(8)}  ${p.answers ? 'answers' : 'does not answer'}  ${p.detail ?? ''}`);
  }
  for (const n of state.notes) o.log(`  note: ${n}`);
  return { dir: o.dir, up, parts, notes: state.notes };
}
