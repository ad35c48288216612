// 5. Throughput: instant delegated tasks (the reviewer with no question) completed per second with
// 20 and 200 in flight, planner against the plain @a2a-js/sdk client, in alternating windows
// (A B A B); CPU ms per task of the worker and of the Temporal server over the planner's windows.
// The floor (bench/floor/) runs the same tasks in windows of its own, with its CPU per task too.
import { startDelegatedTask } from '../client/delegated-task';
import { startCodeReviewer } from '../demo/agents';
import { connect, instant, DIFF } from './lib/baseline';
import { cpuMs, type BenchEnv, type BenchWorker } from './lib/env';
import { interleaveMany, pool, size, type Record } from './lib/runner';
import type { Floor } from './floor/run';

export async function runThroughput(env: BenchEnv, record: Record, taskQueue: string, worker: BenchWorker, floor: Floor): Promise<void> {
  const perWindow = size('BENCH_TPUT_TASKS', 150, 20);
  const windows = size('BENCH_TPUT_WINDOWS', 1, 1);
  const agent = await startCodeReviewer({ questions: 0 });
  const a2a = await connect(agent.baseUrl);
  const out: { inFlight: number; planner: number[]; baseline: number[]; floor: number[]; workerCpuMsPerTask: number; serverCpuMsPerTask: number; floorCpuMsPerTask: number }[] = [];
  try {
    for (const inFlight of [20, 200]) {
      // At least 3 × the tasks in flight, so that the window measures the steady state, not the first burst.
      const n = Math.max(perWindow, inFlight * 3);
      let workerCpu = 0;
      let serverCpu = 0;
      let plannerTasks = 0;
      const planner = async (w: number): Promise<number> => {
        const [wc, sc] = [cpuMs(worker.pid), cpuMs(env.server.pid)];
        const t0 = Date.now();
        await pool(Array.from({ length: n }, (_, i) => i), inFlight, async (i) => {
          const h = await startDelegatedTask(env.client, { agent: { name: 'code-reviewer', url: agent.baseUrl }, message: { text: DIFF }, planId: `tput-${inFlight}-${w}-${i}` }, { taskQueue });
          const r = await h.result();
          if (r.state !== 'TASK_STATE_COMPLETED') throw new Error(`instant task ended ${r.state}`);
        });
        const s = (Date.now() - t0) / 1000;
        workerCpu += cpuMs(worker.pid) - wc;
        serverCpu += cpuMs(env.server.pid) - sc;
        plannerTasks += n;
        return n / s;
      };
      const baseline = async (): Promise<number> => {
        const t0 = Date.now();
        await pool(Array.from({ length: n }, (_, i) => i), inFlight, () => instant(a2a));
        return n / ((Date.now() - t0) / 1000);
      };
      let floorCpu = 0;
      const floorSide = async (w: number): Promise<number> => {
        const [fc, sc] = [cpuMs(floor.pid), cpuMs(env.server.pid)];
        const t0 = Date.now();
        await pool(Array.from({ length: n }, (_, i) => i), inFlight, (i) => floor.task(`floor-tput-${inFlight}-${w}-${i}-${t0}`, agent, DIFF));
        const s = (Date.now() - t0) / 1000;
        floorCpu += cpuMs(floor.pid) - fc + (cpuMs(env.server.pid) - sc);
        return n / s;
      };
      [workerCpu, serverCpu, plannerTasks] = [0, 0, 0];
      const [a = [], b = [], f = []] = await interleaveMany(windows, [planner, baseline, floorSide]);
      const mean = (xs: number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;
      record.add({ section: '5 throughput', metric: `instant tasks/s, ${inFlight} in flight`, unit: '/s', planner: mean(a), baseline: mean(b), note: `${windows}×${n} tasks`, ...(inFlight === 200 ? { goal: '≥ 100/s', met: mean(a) >= 100 } : {}) });
      record.add({ section: '5 throughput', metric: `CPU per instant task, ${inFlight} in flight`, unit: 'ms', planner: `worker ${(workerCpu / plannerTasks).toFixed(1)} + server ${(serverCpu / plannerTasks).toFixed(1)}` });
      record.add({ section: '5 throughput', metric: `the floor (bench/floor/): instant tasks/s and its worker + server CPU per task, ${inFlight} in flight`, unit: '/s', planner: mean(f), baseline: mean(b), note: `floor worker + server ${(floorCpu / windows / n).toFixed(1)} ms CPU per task` });
      out.push({ inFlight, planner: a, baseline: b, floor: f, workerCpuMsPerTask: workerCpu / plannerTasks, serverCpuMsPerTask: serverCpu / plannerTasks, floorCpuMsPerTask: floorCpu / windows / n });
    }
  } finally {
    await agent.close();
  }
  record.data.throughput = out;
}
