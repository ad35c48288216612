// Push notifications for upstream callers (§3.1.7–§3.1.10), as a2a-js keeps them beside its
// request handler (push_notification/). Here the store is the plan itself: a config is created
// and deleted by an update and read by a query, and the plan delivers every later status and
// artifact to it (workflows/plan/a2a-push.ts). The face checks a webhook before the plan sees it,
// and seals its token and credentials with PLANNER_WEBHOOK_SECRET so history never holds them in
// the clear; a URL with a query or fragment (where secrets hide) is refused, since the URL stays in
// the clear (a2a/webhook-url.ts). Plans started before the `a2a-upstream-push` patch have no push
// handlers: their push-configs query is not registered, which is how the face tells them apart. A
// task has at most PLANNER_PUSH_CONFIGS_PER_TASK configs (each change is one POST per config):
// checked here, and again by the plan's validator.
import { randomUUID } from 'node:crypto';
import { QueryNotRegisteredError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { TaskPushNotificationConfig as SdkPushConfig } from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { AuthenticationInfoSchema } from '../../a2a/schema';
import { outboundPolicy } from '../../a2a/outbound-policy';
import { openSecrets, sealSecrets } from '../../a2a/sealed-credentials';
import { registeredWebhookUrlProblem } from '../../a2a/webhook-url';
import { PlanUpdateRefusal, createPushConfigUpdate, deletePushConfigUpdate, pushConfigsQuery, type NewPushConfig, type UpstreamPushConfig } from '../../workflows/plan/messages';
import { ConfigIdSchema, invalidParams, parseParams } from './params';
import { refusedAs } from './plan-refusals';

/** A webhook as a caller gives it (a config's fields, or configuration.taskPushNotificationConfig). */
export interface PushInput {
  /** The caller's own id for it (kept; the same id again replaces that config). */
  id?: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/** A webhook as the plan keeps it: checked, its secrets sealed; the caller's id, or the plan gives it one. */
export type SealedPushConfig = NewPushConfig;

/** Why the planner will not call this webhook, naming its field (§13.2: it goes through the outbound policy). */
function pushInputProblem(c: PushInput): string | undefined {
  if (typeof c?.url !== 'string' || c.url === '') return 'url: a webhook URL is required';
  const url = registeredWebhookUrlProblem(c.url) ?? outboundPolicy().checkUrl(c.url);
  if (url) return `url: ${url}`;
  if (c.authentication !== undefined && !AuthenticationInfoSchema.safeParse(c.authentication).success) return 'authentication: needs a scheme (and credentials)';
  return undefined;
}

export class PushConfigs {
  constructor(
    private readonly client: Client,
    /** PLANNER_WEBHOOK_SECRET: push notifications are offered only with it. */
    private readonly webhookSecret: string | undefined,
    /** PLANNER_PUSH_CONFIGS_PER_TASK. */
    private readonly perTask: number,
  ) {}

  /** The secret that seals configs; -32003 when there is none (the card says pushNotifications: false). */
  requireOffered(): string {
    if (!this.webhookSecret) {
      throw new PushNotificationNotSupportedError({ message: 'This planner does not offer push notifications (capabilities.pushNotifications is false: PLANNER_WEBHOOK_SECRET is not set); use SubscribeToTask or GetTask' });
    }
    return this.webhookSecret;
  }

  /**
   * The webhook ready for the plan: -32602 naming its field under `prefix` if the planner will not
   * call it, -32003 if push is not offered; else sealed. `protocolVersion` "0.3": registered by a
   * v0.3 caller, whose webhook gets v0.3's events.
   */
  accept(c: PushInput, prefix: string, protocolVersion?: '0.3'): SealedPushConfig {
    const problem = pushInputProblem(c);
    if (problem) throw invalidParams(`${prefix ? `${prefix}.` : ''}${problem}`);
    const id = c.id ? parseParams(ConfigIdSchema, c.id, `${prefix ? `${prefix}.` : ''}id`) : undefined;
    const secret = this.requireOffered();
    const token = c.token || undefined;
    const credentials = c.authentication?.credentials || undefined;
    return {
      ...(id ? { id } : {}),
      url: c.url,
      ...(c.authentication ? { scheme: c.authentication.scheme } : {}),
      ...(token || credentials ? { sealed: sealSecrets(secret, { ...(token ? { token } : {}), ...(credentials ? { credentials } : {}) }) } : {}),
      ...(protocolVersion ? { protocolVersion } : {}),
    };
  }

  /**
   * Registers the webhook with the task's plan (which gives it an id when the caller did not);
   * -32602 naming the bound when the task has its most (a config replacing one of its id takes no
   * more room). A plan that closed meanwhile: as on a finished task, answered and kept nowhere.
   */
  async create(taskId: string, config: SealedPushConfig): Promise<SdkPushConfig> {
    try {
      const existing = await this.registered(taskId);
      if (existing !== undefined) {
        const replaces = config.id !== undefined && existing.some((c) => c.id === config.id);
        if (!replaces && existing.length >= this.perTask) throw invalidParams(`taskId: ${this.tooMany(taskId, existing.length)}`);
        return this.toSdk(taskId, await this.client.workflow.getHandle(taskId).executeUpdate(createPushConfigUpdate, { args: [config] }));
      }
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return this.unkept(taskId, config);
      if (refusedAs(err, PlanUpdateRefusal.InvalidPushConfig)) throw invalidParams(err.cause.message);
      if (refusedAs(err, PlanUpdateRefusal.TooManyPushConfigs)) throw invalidParams(`taskId: ${err.cause.message}`);
      throw err;
    }
    throw new UnsupportedOperationError({ message: `Task ${taskId} was started before this planner delivered push notifications; use SubscribeToTask or GetTask` });
  }

  /**
   * An inline webhook of a retried first message: registered unless the task already has one for
   * that URL (the first attempt's, or an earlier retry's), so that retrying adds it at most once;
   * one with the caller's id replaces that config in place, which is as idempotent.
   */
  async createOnce(taskId: string, config: SealedPushConfig): Promise<void> {
    const existing = await this.registered(taskId);
    if (config.id === undefined && existing?.some((c) => c.url === config.url)) return;
    await this.create(taskId, config);
  }

  /**
   * A config on a finished task (§3.1.7 has no error for it, and the SDKs accept it): the task
   * changes no more, so nothing would ever be sent, and a closed plan takes no update. Answered as
   * created, with the caller's id or a new one, and kept nowhere (Get: -32001; List omits it).
   */
  unkept(taskId: string, config: SealedPushConfig): SdkPushConfig {
    return this.toSdk(taskId, { ...config, id: config.id ?? randomUUID() });
  }

  /** -32602 naming `field` and the bound when the task already has its most configs (an unknown task passes: its lookup says so). */
  async requireRoom(taskId: string, field: string): Promise<void> {
    let existing: UpstreamPushConfig[] | undefined;
    try {
      existing = await this.registered(taskId);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return;
      throw err;
    }
    if (existing !== undefined && existing.length >= this.perTask) throw invalidParams(`${field}: ${this.tooMany(taskId, existing.length)}`);
  }

  private tooMany(taskId: string, count: number): string {
    return `task ${taskId} has ${count} push notification configs, the most one task may have (PLANNER_PUSH_CONFIGS_PER_TASK (${this.perTask})); delete one first`;
  }

  /** The task's configs, in creation order ([] for a plan started before push support). */
  async list(taskId: string, runId: string): Promise<SdkPushConfig[]> {
    return ((await this.registered(taskId, runId)) ?? []).map((c) => this.toSdk(taskId, c));
  }

  /** One config of the task (-32001 when it has none of that id). */
  async get(taskId: string, runId: string, id: string): Promise<SdkPushConfig> {
    const found = (await this.registered(taskId, runId))?.find((c) => c.id === id);
    if (!found) throw new TaskNotFoundError({ message: `Push notification config ${id} not found on task ${taskId}` });
    return this.toSdk(taskId, found);
  }

  /** Removes a config. Idempotent (§3.1.10): an ended task's configs ended with it; an unknown id is already gone. */
  async delete(taskId: string, runId: string, id: string): Promise<void> {
    try {
      const configs = await this.registered(taskId, runId);
      if (!configs?.some((c) => c.id === id)) return;
      await this.client.workflow.getHandle(taskId).executeUpdate(deletePushConfigUpdate, { args: [{ id }] });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return;
      throw err;
    }
  }

  /** The plan's configs; undefined when it has no push handlers (started before the `a2a-upstream-push` patch). */
  private async registered(taskId: string, runId?: string): Promise<UpstreamPushConfig[] | undefined> {
    try {
      return await this.client.workflow.getHandle(taskId, runId).query(pushConfigsQuery);
    } catch (err) {
      if (err instanceof QueryNotRegisteredError) return undefined;
      throw err;
    }
  }

  /** The config in wire form, its secrets opened for the caller who registered them. */
  private toSdk(taskId: string, c: UpstreamPushConfig): SdkPushConfig {
    const secrets = c.sealed && this.webhookSecret ? openSecrets(this.webhookSecret, c.sealed) : {};
    return {
      tenant: '',
      id: c.id,
      taskId,
      url: c.url,
      token: secrets.token ?? '',
      authentication: c.scheme ? { scheme: c.scheme, credentials: secrets.credentials ?? '' } : undefined,
    };
  }
}
