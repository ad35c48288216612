// What test/workflow-modules.test.ts's module-state rule must find: state at module scope that one
// workflow could change and another then see, were this module preloaded into the workflow bundle.
export let counter = 0;
export const seen = new Set<string>();
export const NAMES: ReadonlySet<string> = new Set(['a']);
export function count(name: string): number {
  seen.add(name);
  return (counter += NAMES.has(name) ? 1 : 0);
}
