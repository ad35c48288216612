// The memory allocator a worker process runs with. A worker that parks thousands of waits frees
// most of what the burst of parking allocated, and glibc's malloc keeps much of it: each time a
// large block it had mmapped is freed, it raises its mmap threshold (up to 32 MiB), so later large
// blocks come from its per-thread arenas, which keep their pages once freed. jemalloc hands freed
// pages back within seconds, at no CPU cost measured per task (docs/benchmarks.md: 10,000 parked).
// An allocator is chosen only when a process starts (LD_PRELOAD), so whatever starts a worker sets
// it: spawnWorker (tests, bench, chaos) through `withWorkerAllocator`, the image by its ENV
// (deploy/Dockerfile), an operator's unit file as docs/deploy.md says.
import { existsSync, readFileSync } from 'node:fs';

/** Where Debian and Ubuntu (package libjemalloc2) and Alpine (jemalloc) install the library. */
const JEMALLOC = ['/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2', '/usr/lib/libjemalloc.so.2'];

/** jemalloc's shared library on this machine, if installed. */
export function jemallocPath(exists: (path: string) => boolean = existsSync): string | undefined {
  return JEMALLOC.find((p) => exists(p));
}

/**
 * `env` for a worker process: jemalloc preloaded when it is installed. A caller that sets
 * LD_PRELOAD itself (an empty value included: `LD_PRELOAD=` keeps glibc's malloc) is left as it chose.
 */
export function withWorkerAllocator(env: NodeJS.ProcessEnv, exists: (path: string) => boolean = existsSync): NodeJS.ProcessEnv {
  if (env.LD_PRELOAD !== undefined) return env;
  const lib = jemallocPath(exists);
  return lib ? { ...env, LD_PRELOAD: lib } : env;
}

/** The allocator a process (this one by default) runs with: what is mapped, not what was asked. */
export function runningAllocator(pid: number | 'self' = 'self'): 'jemalloc' | 'system' {
  try {
    return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libjemalloc') ? 'jemalloc' : 'system';
  } catch {
    return 'system'; // not Linux
  }
}
