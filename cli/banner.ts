// What `planner dev` prints once everything is up: where things are, and what to try next.

export interface DevEndpoints {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** The Temporal UI: the one this process started, else PLANNER_UI_URL. */
  temporalUi: string;
  /** True when this process started the dev server (and will stop it). */
  startedTemporal: boolean;
  agents: Array<{ name: string; url: string }>;
  pushReceiver?: string;
  /** The planner's HTTP API, once server/ lands. */
  api?: string;
}

/** Commands to try next, once planner dev is up. */
export const NEXT_COMMANDS: Array<[command: string, why: string]> = [
  ['npx planner demo', 'delegate to the demo agents and watch them wait'],
  ['npx planner inbox', 'what waits on whom'],
  ['npx planner run demo/plans/release.yaml --wait', 'run a plan file to its end'],
];

export function formatBanner(e: DevEndpoints): string {
  const rows: Array<[string, string]> = [
    ['Temporal UI', e.temporalUi],
    ['Temporal', `${e.temporalAddress} (${e.startedTemporal ? 'dev server started here, data in .planner/' : 'already running; left as it is'})`],
    ['', `namespace ${e.namespace}, task queues ${e.taskQueue} and ${e.taskQueue}-watch`],
    ...e.agents.map((a): [string, string] => [a.name, a.url]),
    ...(e.pushReceiver ? [['push receiver', e.pushReceiver] as [string, string]] : []),
    ...(e.api ? [['planner API', e.api] as [string, string]] : []),
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const commandWidth = Math.max(...NEXT_COMMANDS.map(([c]) => c.length));
  const rule = '-'.repeat(72);
  return [
    rule,
    'a2a-planner is running. Ctrl-C stops everything it started (twice: at once).',
    '',
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
    '',
    'Next, in another terminal:',
    ...NEXT_COMMANDS.map(([c, why]) => `  ${c.padEnd(commandWidth)}  # ${why}`),
    rule,
  ].join('\n');
}
