// The real worker entry (worker/main.ts) in a child process, ready once it logs "worker running":
// what the tests that SIGKILL a worker, the bench (its own pid for RSS and CPU) and the chaos suite
// start.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { SOURCE_ROOT } from '../runtime/source-root';
import { withWorkerAllocator } from './allocator';

const ROOT = SOURCE_ROOT;

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** The last 64 KiB the worker wrote, until it was ready (the caller drains the rest). */
  output(): string;
  /** Sends `signal` (SIGKILL after 15 s unless it is SIGKILL already) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function spawnWorker(env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<WorkerProcess> {
  return spawnReady(join('worker', 'main.ts'), withWorkerAllocator(env), 'worker running', nodeArgs);
}

/**
 * A TypeScript entry of this repository (`entry`, relative to its root) in a node child process,
 * ready once its output contains `readyText`: the worker, and the chaos suite's agents process.
 */
export async function spawnReady(entry: string, env: NodeJS.ProcessEnv, readyText: string, nodeArgs: string[] = []): Promise<WorkerProcess> {
  // node itself (not the tsx CLI, which would sit between us and the process and outlive a SIGKILL).
  const child = spawn(process.execPath, [...nodeArgs, '--require', 'tsx/cjs', join(ROOT, entry)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave a half-started process behind
      reject(new Error(`${entry} did not start in 60 s:\n${out}`));
    }, 60_000);
    const onData = (b: Buffer): void => {
      out = (out + b.toString()).slice(-65_536);
      if (out.includes(readyText)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = signal === 'SIGKILL' ? undefined : setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
