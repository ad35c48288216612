// An @a2a-js/sdk client of the planner's face, for the suites that drive it from outside: the
// caller's bearer token on every request, one binding preferred, and messages in the SDK's shape.
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client as SdkClient } from '@a2a-js/sdk/client';
import { Role, type Task } from '@a2a-js/sdk';
import { TOKEN } from './api';

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
