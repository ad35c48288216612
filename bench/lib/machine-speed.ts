// How fast the machine is at a moment: a fixed CPU workload, timed in the bench's own process
// while nothing else of the bench runs (before the first section and after each). On this 2-core
// machine, idle, the same workload took 23–57 ms a few seconds apart, and the floor's CPU per
// instant task was 18–19 ms in the quiet record and 27–37 ms one evening: every latency ratio moves
// with the machine, the floor's as much as the planner's. A probe is a snapshot; the speeds across
// a run, beside its floor rows, say whether it was a quiet run.
import { createHash } from 'node:crypto';

/** SHA-256 applied to its own digest this many times: 17–25 ms at this machine's fastest. */
const CHAIN = 20_000;
const SAMPLES = 9;

/** The workload's median time in ms over SAMPLES runs after one untimed (~0.3–0.6 s in all). */
export function probeSpeed(): number {
  chain();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    chain();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(SAMPLES / 2)]! * 10) / 10;
}

function chain(): Buffer {
  let digest = Buffer.alloc(32);
  for (let j = 0; j < CHAIN; j++) digest = createHash('sha256').update(digest).digest();
  return digest;
}
