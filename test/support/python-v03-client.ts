// The Python a2a-sdk 0.3.26 client (test/agents/python-v03/client.py) run against a face: its
// venv's python from A2A_TEST_PYTHON_V03, or scripts/setup-test-agents.sh (cached) when unset.
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** The driver stops itself after 90 s; this bounds the child from outside too. */
const CHILD_TIMEOUT_MS = 100_000;

let python: string | undefined;

function pythonV03(): string {
  if (python) return python;
  python = process.env.A2A_TEST_PYTHON_V03;
  if (!python) {
    const out = execFileSync('bash', [join(ROOT, 'scripts', 'setup-test-agents.sh')], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    python = /^A2A_TEST_PYTHON_V03=(.+)$/m.exec(out)?.[1];
  }
  if (!python) throw new Error('scripts/setup-test-agents.sh did not name the Python v0.3 venv (A2A_TEST_PYTHON_V03)');
  return python;
}

/** One line the driver printed: its step and what it saw. */
export type V03Step = { step: string } & Record<string, unknown>;

/**
 * Runs the driver to its end; rejects with its stderr when it fails. `streaming` / `blocking`: the
 * seed plan; `push`: registers `extra` = [task id, webhook URL] on a task.
 */
export function runPythonV03Client(base: string, token: string, binding: 'JSONRPC' | 'HTTP+JSON', mode: 'streaming' | 'blocking' | 'push', extra: string[] = []): Promise<V03Step[]> {
  const script = join(ROOT, 'test', 'agents', 'python-v03', 'client.py');
  return new Promise((resolve, reject) => {
    execFile(pythonV03(), [script, base, token, binding, mode, ...extra], { timeout: CHILD_TIMEOUT_MS, killSignal: 'SIGKILL', env: { ...process.env, PYTHONUNBUFFERED: '1' } }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`the v0.3 client failed (${err.message}):\n${stdout}\n${stderr.slice(-8000)}`));
      resolve(stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as V03Step));
    });
  });
}
