/**
 * Push delivery that records each webhook POST and its HTTP status.
 *
 * The SDK's DefaultPushNotificationSender cannot report the status it got
 * (and logs every delivery with console.info), so this sender does the same
 * job with the SDK's own store and v1.0 serializer, plus a record per POST.
 */
import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import {
  V1PushNotificationSerializer,
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import type { AgentLog } from './recorder';

const DELIVERY_TIMEOUT_MS = 5_000;

function taskIdOf(response: StreamResponse): string {
  const payload = response.payload;
  if (!payload) return '';
  return payload.$case === 'task' ? payload.value.id : payload.value.taskId;
}

function authHeaders(config: TaskPushNotificationConfig): Record<string, string> {
  if (config.authentication?.scheme && config.authentication.credentials) {
    return { Authorization: `${config.authentication.scheme} ${config.authentication.credentials}` };
  }
  return config.token ? { 'X-A2A-Notification-Token': config.token } : {};
}

export class RecordingPushSender implements PushNotificationSender {
  private readonly serializer = new V1PushNotificationSerializer();
  /** Per task, so a webhook sees that task's events in the order they happened. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly store: PushNotificationStore,
    private readonly deliveries: AgentLog['pushDeliveries'],
  ) {}

  async send(response: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const taskId = taskIdOf(response);
    if (!taskId || this.closed) return;
    const configs = await this.store.load(taskId, context);
    if (configs.length === 0) return;
    const { body, contentType } = this.serializer.serialize(response, task);
    const previous = this.chains.get(taskId) ?? Promise.resolve();
    const next = previous.then(async () => {
      await Promise.all(configs.map((config) => this.deliver(taskId, config, body, contentType)));
    });
    this.chains.set(taskId, next);
    try {
      await next;
    } finally {
      if (this.chains.get(taskId) === next) this.chains.delete(taskId);
    }
  }

  /** Aborts deliveries still in flight and waits for them, so no socket or timer outlives the agent. */
  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.inFlight) controller.abort();
    await Promise.allSettled([...this.chains.values()]);
  }

  private async deliver(taskId: string, config: TaskPushNotificationConfig, body: string, contentType: string) {
    if (this.closed) return;
    const entry: AgentLog['pushDeliveries'][number] = { taskId, at: Date.now(), url: config.url };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), DELIVERY_TIMEOUT_MS);
    this.inFlight.add(controller);
    try {
      const response = await fetch(config.url, {
        method: 'POST',
        headers: { 'Content-Type': contentType, ...authHeaders(config) },
        body,
        signal: controller.signal,
      });
      await response.arrayBuffer();
      entry.status = response.status;
    } catch {
      // An unreachable webhook is recorded without a status; the SDK treats delivery as best effort too.
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
      this.deliveries.push(entry);
    }
  }
}
