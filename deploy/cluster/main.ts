// `npx tsx deploy/cluster/main.ts up|down|status [--workers N] [--servers M] [--dir D] [--no-ui]`
// (the CLI's `planner cluster` calls the same functions). Ports, the database password and the
// counts also come from the environment: deploy/cluster/settings.ts (PORT_ENV, CLUSTER_ENV).
import { parseArgs } from 'node:util';
import { clusterDown } from './down';
import { clusterStatus } from './status';
import { clusterUp } from './up';
import type { ClusterOptions } from './state';

const USAGE = 'usage: planner cluster up|down|status [--workers N] [--servers M] [--dir FOLDER] [--no-ui]';

export async function clusterMain(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { workers: { type: 'string' }, servers: { type: 'string' }, dir: { type: 'string' }, 'no-ui': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  const verb = positionals[0];
  if (values.help || !verb || positionals.length > 1) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const count = (flag: string, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag} must be a whole number, got ${raw}`);
    return n;
  };
  const opts: ClusterOptions = {
    ...(values.dir ? { dir: values.dir } : {}),
    ...(values.workers !== undefined ? { workers: count('workers', values.workers) } : {}),
    ...(values.servers !== undefined ? { servers: count('servers', values.servers) } : {}),
    ...(values['no-ui'] ? { ui: false } : {}),
  };
  switch (verb) {
    case 'up':
      await clusterUp(opts);
      return 0;
    case 'down':
      await clusterDown(opts);
      return 0;
    case 'status':
      return (await clusterStatus(opts)).up ? 0 : 1;
    default:
      console.error(USAGE);
      return 2;
  }
}

if (require.main === module) {
  clusterMain(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`planner cluster: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
