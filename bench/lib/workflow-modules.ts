// What a workflow start costs in module evaluation. The SDK's reusable V8 context evaluates the
// workflow bundle once, but every workflow gets its own module cache for the modules it imports
// (@temporalio/worker/lib/workflow/reusable-vm.js, the __webpack_module_cache__ proxy), so
// `importWorkflows()` and `importInterceptors()` run those modules again at each start and after
// each cache eviction, unless the bundle preloads them (worker/workflow-bundle.ts does). This
// replays that in a plain V8 context: the bundle and its preloads once, then both with a fresh
// per-workflow cache each time, and reports the CPU and the modules evaluated. (The interceptors
// are the tracing ones, workflows/tracing.ts: an untraced start loads no OTel module.)
import { runInContext, createContext, Script } from 'node:vm';
import { plannerBundle } from '../../worker/workflow-bundle';
import { pct } from './runner';

export interface ModuleCost {
  /** CPU per importWorkflows(), ms. */
  p50Ms: number;
  meanMs: number;
  starts: number;
  /** Module ids evaluated per workflow start (the webpack ids: paths under the project). */
  perWorkflow: string[];
  /** Module ids evaluated once, with the bundle, and shared by every workflow (the SDK's and the preloaded). */
  shared: string[];
  bundleBytes: number;
}

export async function measureWorkflowModules(starts: number, code?: string): Promise<ModuleCost> {
  code ??= (await plannerBundle()).code;
  const shared = new Map<PropertyKey, unknown>();
  let own: Map<PropertyKey, unknown> | undefined;
  const cache = new Proxy({}, {
    get: (_, p) => shared.get(p) ?? own?.get(p),
    set: (_, p, v) => ((own ?? shared).set(p, v), true),
  });
  // `performance`: what the OTel interceptors give the sandbox, should a bundle load them at a start.
  const context = createContext({ console, TextEncoder, TextDecoder, URL, URLSearchParams, AbortController, performance: { timeOrigin: Date.now(), now: () => 0 } });
  Object.defineProperty(context, '__webpack_module_cache__', { value: cache });
  new Script(code).runInContext(context);
  runInContext('__TEMPORAL__.preloadModules?.()', context);
  const cpu: number[] = [];
  for (let i = 0; i < starts; i++) {
    own = new Map();
    const t = process.cpuUsage();
    runInContext('__TEMPORAL__.importWorkflows(); __TEMPORAL__.importInterceptors()', context);
    const d = process.cpuUsage(t);
    cpu.push((d.user + d.system) / 1000);
  }
  return {
    p50Ms: pct(cpu, 50),
    meanMs: cpu.reduce((a, b) => a + b, 0) / cpu.length,
    starts,
    perWorkflow: [...(own?.keys() ?? [])].map(String),
    shared: [...shared.keys()].map(String),
    bundleBytes: code.length,
  };
}
