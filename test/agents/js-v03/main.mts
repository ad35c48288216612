/**
 * The @a2a-js/sdk 0.3.14 code-reviewer and deployer (executors.ts) as a child process, served the
 * way that SDK's docs show: a v0.3 card (top-level `url`, `preferredTransport`,
 * `additionalInterfaces`, protocolVersion 0.3.0), `jsonRpcHandler` at /a2a/jsonrpc and
 * `restHandler` at /a2a/rest. It logs each A2A request (by its v0.3 method name on either
 * binding) and each user message as a JSON line on stdout before the SDK sees it, like the
 * Python and Go agents (sdk-agents.ts reads them).
 *
 * A child in ESM (.mts, run by tsx), not a module in the test process: 0.3.14's CommonJS build
 * gives `server` and `server/express` each their own copy of A2AError, so under CommonJS every
 * error the request handler throws fails the express layer's `instanceof` and reaches the wire
 * as -32603 InternalError (docs/interop.md). Its ESM build shares one copy, as a deployed ESM
 * agent would.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import express, { type Request } from 'express';
import type { AgentCard } from 'a2a-sdk-v03';
import { DefaultPushNotificationSender, DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore, type AgentExecutor } from 'a2a-sdk-v03/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a-sdk-v03/server/express';
import { CodeReviewerV03, DeployerV03 } from './executors';
/** The v0.3 method a REST route stands for, so both bindings log alike. */
export function v03RestMethod(httpMethod: string, route: string): string {
  if (route === '/v1/message:send') return 'message/send';
  if (route === '/v1/message:stream') return 'message/stream';
  if (/^\/v1\/tasks\/[^/:]+:subscribe$/.test(route)) return 'tasks/resubscribe';
  if (/^\/v1\/tasks\/[^/:]+:cancel$/.test(route)) return 'tasks/cancel';
  if (/^\/v1\/tasks\/[^/:]+$/.test(route) && httpMethod === 'GET') return 'tasks/get';
  if (/^\/v1\/tasks\/[^/:]+\/pushNotificationConfigs/.test(route)) return `tasks/pushNotificationConfig/${httpMethod.toLowerCase()}`;
  return '';
}

const str = (x: unknown): string | undefined => (typeof x === 'string' && x !== '' ? x : undefined);
const rec = (x: unknown): Record<string, unknown> => (x !== null && typeof x === 'object' ? (x as Record<string, unknown>) : {});

const log = (line: Record<string, unknown>): void => void process.stdout.write(JSON.stringify(line) + '\n');

function record(req: Request): void {
  const at = Date.now();
  const body = rec(req.body);
  let method: string;
  let taskId: string | undefined;
  let message: Record<string, unknown> | undefined;
  const path = req.originalUrl.split('?')[0]!;
  if (path.startsWith('/a2a/jsonrpc')) {
    const params = rec(body['params']);
    method = str(body['method']) ?? '';
    message = params['message'] ? rec(params['message']) : undefined;
    taskId = str(params['id']) ?? str(params['taskId']) ?? str(message?.['taskId']);
  } else {
    const route = path.replace(/^\/a2a\/rest/, '');
    method = v03RestMethod(req.method, route);
    // The REST binding's proto JSON: SendMessageRequest.request is the message, its parts `content`.
    message = body['request'] ? rec(body['request']) : undefined;
    taskId = /^\/v1\/tasks\/([^/:]+)/.exec(route)?.[1] ?? str(message?.['taskId']);
  }
  log({ event: 'request', at, method, path: req.originalUrl, taskId: taskId ?? '' });
  if (!message) return;
  const parts = (Array.isArray(message['parts']) ? message['parts'] : Array.isArray(message['content']) ? message['content'] : []) as unknown[];
  log({
    event: 'message',
    at,
    messageId: str(message['messageId']) ?? '',
    taskId: str(message['taskId']) ?? '',
    contextId: str(message['contextId']) ?? '',
    text: parts.flatMap((p) => (typeof rec(p)['text'] === 'string' ? [rec(p)['text'] as string] : [])).join('\n'),
  });
}

const { values: flags } = parseArgs({
  options: {
    agent: { type: 'string', default: 'code-reviewer' },
    questions: { type: 'string', default: '1' },
    'auth-loops': { type: 'string', default: '1' },
    'preferred-binding': { type: 'string', default: 'JSONRPC' },
    streaming: { type: 'string', default: 'true' },
    push: { type: 'string', default: 'false' },
  },
});
const kind = flags.agent === 'deployer' ? 'deployer' : 'code-reviewer';

async function main(): Promise<void> {
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const deployer = kind === 'deployer' ? new DeployerV03(baseUrl, Number(flags['auth-loops'])) : undefined;
  const executor: AgentExecutor = deployer ?? new CodeReviewerV03(Number(flags.questions));
  const jsonrpc = { url: `${baseUrl}/a2a/jsonrpc`, transport: 'JSONRPC' };
  const rest = { url: `${baseUrl}/a2a/rest`, transport: 'HTTP+JSON' };
  const [first, second] = flags['preferred-binding'] === 'HTTP+JSON' ? [rest, jsonrpc] : [jsonrpc, rest];
  const card: AgentCard = {
    protocolVersion: '0.3.0',
    name: kind,
    description: kind === 'deployer' ? 'Deploys a build to staging after an operator approves it out of band.' : 'Reviews a diff; asks which base branch to compare against.',
    url: first.url,
    preferredTransport: first.transport,
    additionalInterfaces: [first, second],
    version: '0.1.0',
    capabilities: { streaming: flags.streaming !== 'false', pushNotifications: flags.push === 'true' },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [{ id: kind, name: kind, description: kind, tags: [kind] }],
  };
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor, undefined, pushStore, new DefaultPushNotificationSender(pushStore));
  app.use(express.json());
  app.use('/a2a', (req, _res, next) => {
    record(req);
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.post('/approve/:taskId', (req, res) => {
    const ok = deployer?.approve(req.params.taskId) ?? false;
    res.status(ok ? 200 : 404).json({ approved: ok });
  });
  process.on('SIGTERM', () => {
    deployer?.shutdown();
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  log({ event: 'listening', port });
}

void main();
