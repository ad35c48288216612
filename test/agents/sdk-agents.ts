/**
 * The seed's code-reviewer and deployer on every SDK the planner is tested against: @a2a-js/sdk (in
 * this process, demo/agents/), a2a-sdk 1.3.0 for Python (test/agents/python/) and a2a-go v2.4.0
 * (test/agents/go/), the last two as child processes on free loopback ports. All expose one surface:
 * baseUrl, approve(taskId), close(), and what arrived on the wire (requests and user messages), so a
 * suite can run the same scenario on each and assert no message arrived twice.
 *
 * The Python venv and the Go binary are built into the user cache by scripts/setup-test-agents.sh
 * (`npm test` runs it first; when A2A_TEST_PYTHON / A2A_TEST_GO_AGENTS are unset it is run here).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startCodeReviewer, startDeployer, type AgentHandle, type Binding } from '../../demo/agents';

export type Sdk = 'js' | 'python' | 'go';
export const SDKS: readonly Sdk[] = ['js', 'python', 'go'];
export const SDK_LABEL: Record<Sdk, string> = { js: '@a2a-js/sdk 1.3.0', python: 'a2a-sdk (Python) 1.3.0', go: 'a2a-go v2.4.0' };
export type AgentKind = 'code-reviewer' | 'deployer';
/** The A2A v0.3 SDKs (sdk-agents-v03.ts). */
export type V03Sdk = 'js-v03' | 'python-v03';

export interface SdkAgentOptions {
  /** code-reviewer: INPUT_REQUIRED turns before it completes (default 1). */
  questions?: number;
  /** deployer: AUTH_REQUIRED rounds, each needing its own approval (default 1). */
  authRounds?: number;
  /** Default true; false: the card says so and the SDK refuses streaming calls. */
  streaming?: boolean;
  /** The interface listed first in the card (default JSONRPC). */
  preferredBinding?: Binding;
  /** deployer (JS and Python): every approval round asked in the same words. */
  sameApprovalText?: boolean;
}

/** One A2A request as it arrived, before the SDK saw it. */
export interface ArrivedRequest {
  at: number;
  method: string;
  taskId?: string;
  /** '/a2a/jsonrpc' or '/a2a/rest/...' */
  path: string;
}

/** One user message as it arrived. */
export interface ArrivedMessage {
  at: number;
  messageId: string;
  taskId?: string;
  contextId?: string;
  text: string;
}

export interface SdkAgent {
  sdk: Sdk | V03Sdk;
  kind: AgentKind;
  baseUrl: string;
  requests: ArrivedRequest[];
  messages: ArrivedMessage[];
  /** POST {baseUrl}/approve/{taskId}; throws on a non-2xx answer. */
  approve(taskId: string): Promise<void>;
  /** The agent's stderr (children only), for failure messages. */
  output(): string;
  close(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');

/** Children still running: killed if this process exits without closing them (a crashed suite). */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

let built: { python: string; go: string } | undefined;

/** Paths of the venv's python and the Go binary; builds them (once, cached) when not given. */
export function sdkAgentBinaries(): { python: string; go: string } {
  if (built) return built;
  let python = process.env.A2A_TEST_PYTHON;
  let go = process.env.A2A_TEST_GO_AGENTS;
  if (!python || !go) {
    const out = execFileSync('bash', [join(ROOT, 'scripts', 'setup-test-agents.sh')], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    for (const line of out.split('\n')) {
      const [key, ...rest] = line.split('=');
      if (key === 'A2A_TEST_PYTHON') python = rest.join('=');
      if (key === 'A2A_TEST_GO_AGENTS') go = rest.join('=');
    }
  }
  if (!python || !go) throw new Error('scripts/setup-test-agents.sh did not name the Python and Go test agents');
  built = { python, go };
  return built;
}

function fromJs(kind: AgentKind, handle: AgentHandle): SdkAgent {
  const { log } = handle;
  return {
    sdk: 'js',
    kind,
    baseUrl: handle.baseUrl,
    get requests() {
      return log.requests.map((r) => ({ at: r.at, method: r.method, taskId: r.taskId, path: r.path }));
    },
    get messages() {
      return log.userMessages.map((m) => ({ at: m.at, messageId: m.messageId, taskId: m.taskId, contextId: m.contextId, text: m.text }));
    },
    approve: (taskId) => handle.approve(taskId),
    output: () => '',
    close: () => handle.close(),
  };
}

function childArgs(sdk: 'python' | 'go', kind: AgentKind, o: SdkAgentOptions): { command: string; args: string[] } {
  const flags = [
    '--agent', kind,
    '--questions', String(o.questions ?? 1),
    '--auth-loops', String(o.authRounds ?? 1),
    '--preferred-binding', o.preferredBinding ?? 'JSONRPC',
  ];
  const bin = sdkAgentBinaries();
  if (sdk === 'python') return { command: bin.python, args: [join(ROOT, 'test', 'agents', 'python', 'agents.py'), ...flags, '--streaming', String(o.streaming ?? true), ...(o.sameApprovalText ? ['--same-approval-text'] : [])] };
  if (o.sameApprovalText) throw new Error('sameApprovalText: the Go test agents always number their rounds');
  return { command: bin.go, args: [...flags, `--streaming=${String(o.streaming ?? true)}`] };
}

function startChild(sdk: 'python' | 'go', kind: AgentKind, o: SdkAgentOptions): Promise<SdkAgent> {
  const { command, args } = childArgs(sdk, kind, o);
  return spawnSdkAgent(sdk, kind, command, args);
}

/** Runs an agent as a child that logs `listening`, `request` and `message` JSON lines on stdout. */
export async function spawnSdkAgent(sdk: SdkAgent['sdk'], kind: AgentKind, command: string, args: string[]): Promise<SdkAgent> {
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  const requests: ArrivedRequest[] = [];
  const messages: ArrivedMessage[] = [];
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-32_768)));
  live.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => live.delete(child));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${sdk} ${kind} did not start in 30 s:\n${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${sdk} ${kind} exited with ${code} before listening:\n${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let ev: Record<string, unknown>;
      try {
        ev = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return; // not one of ours
      }
      const at = Number(ev.at);
      const str = (k: string) => (typeof ev[k] === 'string' && ev[k] !== '' ? (ev[k] as string) : undefined);
      if (ev.event === 'listening') {
        clearTimeout(timer);
        resolve(Number(ev.port));
      } else if (ev.event === 'request') {
        requests.push({ at, method: str('method') ?? '', taskId: str('taskId'), path: str('path') ?? '' });
      } else if (ev.event === 'message') {
        messages.push({ at, messageId: str('messageId') ?? '', taskId: str('taskId'), contextId: str('contextId'), text: String(ev.text ?? '') });
      }
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    sdk,
    kind,
    baseUrl,
    requests,
    messages,
    async approve(taskId) {
      const res = await fetch(`${baseUrl}/approve/${encodeURIComponent(taskId)}`, { method: 'POST' });
      const body = await res.text();
      if (!res.ok) throw new Error(`${sdk} ${kind} approve(${taskId}) failed: HTTP ${res.status} ${body}`);
    },
    output: () => stderr,
    close: () =>
      (closing ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}

/** Starts `kind` built on `sdk`. */
export async function startSdkAgent(sdk: Sdk, kind: AgentKind, o: SdkAgentOptions = {}): Promise<SdkAgent> {
  if (sdk === 'js') {
    const common = { streaming: o.streaming ?? true, preferredBinding: o.preferredBinding ?? 'JSONRPC' } as const;
    const handle = kind === 'code-reviewer' ? await startCodeReviewer({ ...common, questions: o.questions ?? 1 }) : await startDeployer({ ...common, authRounds: o.authRounds ?? 1, sameApprovalText: o.sameApprovalText ?? false });
    return fromJs(kind, handle);
  }
  return startChild(sdk, kind, o);
}
