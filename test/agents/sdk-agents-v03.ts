/**
 * The seed's code-reviewer and deployer on the two A2A v0.3 SDKs the suite runs: @a2a-js/sdk
 * 0.3.14 (js-v03/main.mts, run by tsx as ESM: main.mts says why) and a2a-sdk 0.3.26 for Python
 * (python-v03/agents.py, from the venv scripts/setup-test-agents.sh builds: A2A_TEST_PYTHON_V03),
 * each a child on a free loopback port. Same handle as sdk-agents.ts; requests are logged by
 * their v0.3 method names (`message/send`, `tasks/resubscribe`, …) on both bindings.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { spawnSdkAgent, type AgentKind, type SdkAgent, type SdkAgentOptions, type V03Sdk } from './sdk-agents';

export const V03_SDKS: readonly V03Sdk[] = ['js-v03', 'python-v03'];
export const V03_SDK_LABEL: Record<V03Sdk, string> = { 'js-v03': '@a2a-js/sdk 0.3.14', 'python-v03': 'a2a-sdk (Python) 0.3.26' };

const ROOT = join(__dirname, '..', '..');
let python: string | undefined;

/** The v0.3 venv's python; runs the setup script (once, cached) when the environment does not name it. */
function pythonV03(): string {
  python ??= process.env.A2A_TEST_PYTHON_V03;
  if (!python) {
    const out = execFileSync('bash', [join(ROOT, 'scripts', 'setup-test-agents.sh')], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    python = /^A2A_TEST_PYTHON_V03=(.*)$/m.exec(out)?.[1];
  }
  if (!python) throw new Error('scripts/setup-test-agents.sh did not name A2A_TEST_PYTHON_V03');
  return python;
}

/** push: the card offers push notifications and the agent delivers them (both SDKs' in-memory store and sender). */
export function startV03Agent(sdk: V03Sdk, kind: AgentKind, o: SdkAgentOptions & { push?: boolean } = {}): Promise<SdkAgent> {
  const flags = [
    '--agent', kind,
    '--questions', String(o.questions ?? 1),
    '--auth-loops', String(o.authRounds ?? 1),
    '--preferred-binding', o.preferredBinding ?? 'JSONRPC',
    '--streaming', String(o.streaming ?? true),
    '--push', String(o.push ?? false),
  ];
  if (sdk === 'js-v03') return spawnSdkAgent(sdk, kind, join(ROOT, 'node_modules', '.bin', 'tsx'), [join(__dirname, 'js-v03', 'main.mts'), ...flags]);
  return spawnSdkAgent(sdk, kind, pythonV03(), [join(__dirname, 'python-v03', 'agents.py'), ...flags]);
}
