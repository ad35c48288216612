// An @a2a-js/sdk client of the planner's face, for the suites that drive it from outside: the
// caller's bearer token on every request, one binding preferred, and messages in the SDK's shape.
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client as SdkClient } from '@a2a-js/sdk/client';
import { Role, type Task } from '@a2a-js/sdk';
import type { RunningServer } from '../../server/main';
import type { AgentHandle } from '../agents';
import { startApi, TOKEN } from './api';
import type { Suite } from './suite';

export type Binding = 'JSONRPC' | 'HTTP+JSON';

export const authed: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${TOKEN}`);
  return fetch(input, { ...init, headers });
};

export async function sdkClient(url: string, binding: Binding): Promise<SdkClient> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authed }), new RestTransportFactory({ fetchImpl: authed })],
      preferredTransports: [binding],
    }),
  );
  return factory.createFromUrl(url);
}

export const textOfStatus = (t: Pick<Task, 'status'>): string => (t.status?.message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

export const userMsg = (text: string, extra: { taskId?: string; contextId?: string; metadata?: Record<string, unknown>; messageId?: string } = {}) => ({
  messageId: extra.messageId ?? randomUUID(),
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text' as const, value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
  contextId: extra.contextId ?? '',
  taskId: extra.taskId ?? '',
  metadata: extra.metadata ?? { skill: 'release' },
  extensions: [],
  referenceTaskIds: [],
});

export const sendReq = (message: ReturnType<typeof userMsg>, configuration?: { returnImmediately?: boolean; historyLength?: number }) => ({
  tenant: '',
  message,
  configuration: configuration ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: configuration.historyLength, returnImmediately: configuration.returnImmediately ?? false } : undefined,
  metadata: undefined,
});

/** The seed plan's two agents and a face on the suite's queue whose plans use them (PLANNER_A2A_AGENT_URLS). */
export interface FaceAgents {
  reviewer: AgentHandle;
  deployer: AgentHandle;
  api: RunningServer;
}

/**
 * Registers the hooks that start the agents (`start`) and the face before the suite's tests and
 * stop them after; the returned object is filled in by then. The SDK's console noise is muted.
 */
export function faceWithAgents(suite: Suite, start: () => Promise<[AgentHandle, AgentHandle]>, apiEnv: Record<string, string> = {}): FaceAgents {
  const face = {} as FaceAgents;
  beforeAll(async () => {
    for (const level of ['error', 'warn'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
    [face.reviewer, face.deployer] = await start();
    process.env.PLANNER_A2A_AGENT_URLS = JSON.stringify({ 'code-reviewer': face.reviewer.baseUrl, deployer: face.deployer.baseUrl });
    face.api = await startApi(suite.client, suite.queue, apiEnv);
  });
  afterAll(async () => {
    delete process.env.PLANNER_A2A_AGENT_URLS;
    await face.api?.close();
    await Promise.all([face.reviewer?.close(), face.deployer?.close()]);
    jest.restoreAllMocks();
  });
  return face;
}
