// `npm run chaos`: the fault suite at its default size (CHAOS_SCALE=1: 4 runs per proxy mode, 50
// seed-plan runs with worker SIGKILLs, a dev server restart, an agent restart). CHAOS_ONLY=proxy,kill,
// restart,agent picks faults; CHAOS_SEED repeats a run. Loopback only. Exits 1 when a figure is off.
import { hostname, loadavg } from 'node:os';
import { chaosOptions, runChaos, table } from './run';

// The SDK's agent server logs each error it answers (with a stack); keep the progress lines readable.
const printError = console.error.bind(console);
console.error = (...args: unknown[]): void => {
  if (typeof args[0] === 'string' && /^(Pre-stream error|Error in|Error processing)/.test(args[0])) return;
  printError(...args);
};

async function main(): Promise<void> {
  const o = chaosOptions();
  const t0 = Date.now();
  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  const figures = await runChaos(o);
  console.log(`\n## a2a-planner fault suite (${new Date().toISOString().slice(0, 16)}Z on ${hostname()}, load ${load} at start, CHAOS_SCALE ${process.env.CHAOS_SCALE ?? 1}, CHAOS_SEED ${o.seed}, ${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  console.log(table(figures));
  const failed = figures.filter((f) => f.problems.length);
  if (failed.length) {
    console.log(`\n${failed.length} fault(s) failed:`);
    for (const f of failed) console.log(`- ${f.fault}: ${f.problems.join('; ')}`);
    process.exit(1);
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
