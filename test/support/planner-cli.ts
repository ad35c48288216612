// The `planner` CLI as a child process, exactly as a user runs it (node bin/planner.js), for suites
// that check what a person sees.
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plannerEnv } from '../harness/planner';

export const BIN = join(__dirname, '..', '..', 'bin', 'planner.js');

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Spawned {
  child: ChildProcess;
  exit: Promise<Exit>;
}

/** Runs the CLI against the run's dev server on `queue`; killed after `killAfterMs` (default 150 s). */
export function spawnPlanner(queue: string, args: string[], opts: { cwd?: string; env?: Record<string, string>; killAfterMs?: number } = {}): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? tmpdir(), // not the repository: the bin must find its own files
    env: { ...process.env, ...plannerEnv(queue), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  // Only a guard against a hung CLI: a run from the sources (dist/ stale: bin/planner.js falls back to
  // tsx) takes seconds when the two cores are shared, and `delegate --wait` lives across test steps.
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 150_000);
  const exit = new Promise<Exit>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, exit };
}

/** An expected error: one line naming the problem, no stack trace. */
export function expectOneLineError(r: Exit, code: number, message: RegExp): void {
  expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code, stderr: expect.stringMatching(message) });
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
