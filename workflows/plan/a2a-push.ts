// Push notifications of a plan's A2A task to the webhooks its upstream callers registered
// (server/face/). The configs live in the plan (durable, served by any replica); each recorded
// status and each new artifact is queued per config and POSTed by an activity, in order, one at a
// time per webhook. A change is keyed <task>/<event>/<config>: the activity sends that key on
// every attempt, and a key delivered once is never queued again. Each config costs an activity per
// change, so a task has a bounded number (the validator refuses one more, leaving no event).
import { ApplicationFailure, CancellationScope, condition, log, proxyActivities, uuid4 } from '@temporalio/workflow';
import { hasPatch } from '../versions';
import type { PlannerActivities } from '../../activities';
import type { Artifact, Message } from '../../a2a/schema';
import { webhookUrlProblem } from '../../a2a/webhook-url';
import { PUSH_CONFIGS_PER_TASK, PlanUpdateRefusal, configIdProblem, type NewPushConfig, type UpstreamPushConfig } from './messages';

/**
 * A caller's own config id is kept (before it, every config got uuid4()). Behind a patch although
 * it adds no command: an update carrying an id that a worker without this code handled got a uuid4
 * (and drew from the workflow's random), so replaying it must do the same.
 */
const CLIENT_CONFIG_IDS_PATCH = 'a2a-push-client-config-ids';

const { deliverUpstreamPush } = proxyActivities<Pick<PlannerActivities, 'deliverUpstreamPush'>>({
  startToCloseTimeout: '30s',
  // Backoff from half a second to a minute; a webhook down for longer misses that change (logged).
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10, nonRetryableErrorTypes: ['WebhookUrlRefused'] },
});

/** Why a config cannot be registered, naming its field (the face checked the token and authentication before sealing them). */
function configProblem(c: NewPushConfig): string | undefined {
  if (typeof c?.url !== 'string' || c.url === '') return 'url: a webhook URL is required';
  const id = c.id === undefined ? undefined : configIdProblem(c.id);
  if (id) return `id: ${id}`;
  const url = webhookUrlProblem(c.url);
  if (url) return `url: ${url}`;
  if (c.scheme !== undefined && (typeof c.scheme !== 'string' || c.scheme === '')) return 'authentication.scheme: must be a non-empty string';
  if (c.sealed !== undefined && typeof c.sealed !== 'string') return 'sealed: must be a string';
  if (c.protocolVersion !== undefined && c.protocolVersion !== '0.3') return `protocolVersion: ${JSON.stringify(c.protocolVersion)} is not "0.3" (absent means 1.0)`;
  return undefined;
}

interface Pending {
  event: string;
  body: object;
}

/** The task's webhooks, the changes queued for each, and the keys already delivered. */
export class PlanPushRecord {
  readonly configs = new Map<string, UpstreamPushConfig>();
  private readonly queues = new Map<string, Pending[]>();
  private readonly delivered = new Set<string>();
  private readonly pumping = new Set<string>();
  private readonly artifactsSeen = new Set<string>();

  constructor(
    readonly taskId: string,
    inline: NewPushConfig[] = [],
    /** The most configs the task may have (checked by the create update's validator). */
    readonly maxConfigs: number = PUSH_CONFIGS_PER_TASK,
  ) {
    for (const c of inline) if (!configProblem(c)) this.create(c);
  }

  /**
   * The createPushConfig update (and each inline config that passes): the config, with the caller's
   * id or one the plan gives it. A config of the same id is replaced in its place (as a2a-js's
   * store does); what was queued for the webhook it had is not sent.
   */
  create(c: NewPushConfig): UpstreamPushConfig {
    const id = c.id !== undefined && hasPatch(CLIENT_CONFIG_IDS_PATCH) ? c.id : uuid4();
    const config: UpstreamPushConfig = { id, url: c.url, ...(c.scheme ? { scheme: c.scheme } : {}), ...(c.sealed ? { sealed: c.sealed } : {}), ...(c.protocolVersion ? { protocolVersion: c.protocolVersion } : {}) };
    this.configs.set(config.id, config);
    this.queues.set(config.id, []);
    return config;
  }

  /** The a2aPushConfigs query. */
  list(): UpstreamPushConfig[] {
    return [...this.configs.values()];
  }

  /**
   * The createPushConfig update's validator: a refused config leaves no history event; its type
   * tells the face why. Validators do not run on replay, so the bound needs no patch: an update
   * already in a history replays as it was accepted.
   */
  checkConfig(c: NewPushConfig): void {
    const problem = configProblem(c);
    if (problem) throw ApplicationFailure.create({ type: PlanUpdateRefusal.InvalidPushConfig, message: problem, nonRetryable: true });
    // A replacement takes no more room.
    if (!(c.id !== undefined && this.configs.has(c.id)) && this.configs.size >= this.maxConfigs) {
      throw ApplicationFailure.create({
        type: PlanUpdateRefusal.TooManyPushConfigs,
        message: `task ${this.taskId} has ${this.configs.size} push notification configs, the most it may have (PLANNER_PUSH_CONFIGS_PER_TASK (${this.maxConfigs}) when it started); delete one first`,
        nonRetryable: true,
      });
    }
  }

  /** The deletePushConfig update (idempotent). */
  delete({ id }: { id: string }): { deleted: boolean } {
    const deleted = this.configs.delete(id);
    this.queues.delete(id); // what was queued for it is not sent
    return { deleted };
  }

  /**
   * Queues what the plan's A2A task just showed: each artifact not queued before, then each status
   * message it recorded (keyed by its place in the task's history: `status/<n>`).
   */
  notifyTask(contextId: string, artifacts: Artifact[], added: Message[]): void {
    for (const artifact of artifacts) {
      this.notifyArtifact(artifact.artifactId, { artifactUpdate: { taskId: this.taskId, contextId, artifact, append: false, lastChunk: true } });
    }
    for (const message of added) {
      const status = { state: message.metadata!.state, message, timestamp: message.metadata!.timestamp };
      this.notify(message.messageId.slice(this.taskId.length + 1), { statusUpdate: { taskId: this.taskId, contextId, status } });
    }
  }

  /** The last changes reach the webhooks before the plan ends (bounded: a dead webhook does not hold it). */
  async drained(): Promise<void> {
    if (!this.idle()) await condition(() => this.idle(), '10 minutes');
  }

  /** Queues a change for every config. */
  private notify(event: string, body: object): void {
    for (const id of this.configs.keys()) {
      const key = this.key(event, id);
      if (this.delivered.has(key)) continue;
      this.queues.get(id)!.push({ event, body });
      if (!this.pumping.has(id)) void this.pump(id);
    }
  }

  /** An artifact is sent once, whatever number of times it is seen. */
  private notifyArtifact(artifactId: string, body: object): void {
    if (this.artifactsSeen.has(artifactId)) return;
    this.artifactsSeen.add(artifactId);
    this.notify(`artifact/${artifactId}`, body);
  }

  /** Nothing queued or in flight: the plan may end. */
  private idle(): boolean {
    return this.pumping.size === 0;
  }

  private key(event: string, configId: string): string {
    return `${this.taskId}/${event}/${configId}`;
  }

  private async pump(id: string): Promise<void> {
    this.pumping.add(id);
    try {
      for (;;) {
        const next = this.queues.get(id)?.shift();
        const config = this.configs.get(id);
        if (!next || !config) return;
        const idempotencyKey = this.key(next.event, id);
        if (this.delivered.has(idempotencyKey)) continue;
        try {
          // Not cancelled with the plan: the CANCELED status is one of the changes to deliver.
          await CancellationScope.nonCancellable(() =>
            deliverUpstreamPush({
              configId: id,
              url: config.url,
              ...(config.scheme ? { scheme: config.scheme } : {}),
              ...(config.sealed ? { sealed: config.sealed } : {}),
              ...(config.protocolVersion ? { protocolVersion: config.protocolVersion } : {}),
              body: next.body,
              idempotencyKey,
            }),
          );
          this.delivered.add(idempotencyKey);
        } catch (err) {
          log.warn('push notification not delivered', { configId: id, key: idempotencyKey, error: String(err) });
        }
      }
    } finally {
      this.pumping.delete(id);
    }
  }
}
