// planner serve: the HTTP API and the push-notification receiver in one stateless process
// (server/); any number of replicas can run behind a load balancer, all reading Temporal.
import { Command } from '@commander-js/extra-typings';
import { examples } from '../help';
import { configOrUsage } from '../temporal';
import { UsageError } from '../errors';

export function serveCommand() {
  return new Command('serve')
    .description('serve the HTTP API (/v1), the OpenAPI document and the push webhook on PLANNER_HOST:PLANNER_PORT')
    .addHelpText(
      'after',
      `
Listens on PLANNER_HOST:PLANNER_PORT (default 127.0.0.1:8080). Every route but GET /healthz and
GET /v1/openapi.json needs a bearer token from PLANNER_API_TOKEN (a comma-separated list, for
rotation); without one it refuses to start unless PLANNER_API_INSECURE=1. Stateless: run as many
replicas as you like. Routes: docs/api.md. SIGINT/SIGTERM stop it.`,
    )
    .addHelpText('after', examples('PLANNER_API_TOKEN=s3cr3t planner serve', 'PLANNER_PORT=9090 PLANNER_API_TOKEN=old,new planner serve'))
    .action(async () => {
      configOrUsage();
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- Express and the routes load only for this command
      const { main } = require('../../server/main') as typeof import('../../server/main');
      try {
        await main();
      } catch (e) {
        if (/PLANNER_API_TOKEN/.test((e as Error).message)) throw new UsageError((e as Error).message);
        throw e;
      }
      await new Promise<never>(() => undefined); // serves until a signal ends the process
    });
}
