/** Runs both test agents on fixed ports for a demo: `npx tsx test/agents/serve.ts`. */
import { startCodeReviewer, startDeployer } from './index';

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const port = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got ${raw}`);
  return port;
}

async function main(): Promise<void> {
  const reviewer = await startCodeReviewer({ port: portFromEnv('REVIEWER_PORT', 41241) });
  const deployer = await startDeployer({ port: portFromEnv('DEPLOYER_PORT', 41243) });
  for (const agent of [reviewer, deployer]) {
    console.log(`${agent.name}: ${agent.baseUrl}/.well-known/agent-card.json`);
  }
  const stop = () => {
    void Promise.all([reviewer.close(), deployer.close()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
