/**
 * An agent that completes at once with one large binary artifact (a raw part), to test how the
 * planner carries artifacts bigger than Temporal's payload limit.
 */
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { artifactEvent, skill, statusEvent, submittedTask, type AgentSpec } from '../../demo/agents';

export const EXPORT_ARTIFACT = 'export.bin';

/** The artifact's bytes: the same for the same size, and not compressible, so nothing can cheat. */
export function exportBytes(size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = 0x9e3779b9;
  for (let i = 0; i < size; i++) {
    // xorshift32
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

class Exporter implements AgentExecutor {
  private readonly bytes: Buffer;

  constructor(size: number) {
    this.bytes = exportBytes(size);
  }

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    bus.publish(AgentEvent.task(ctx.task ?? submittedTask(ctx)));
    bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_WORKING, 'Exporting'));
    bus.publish(
      artifactEvent(taskId, contextId, {
        name: EXPORT_ARTIFACT,
        description: `${this.bytes.length} bytes`,
        parts: [{ content: { $case: 'raw', value: this.bytes }, mediaType: 'application/octet-stream', filename: EXPORT_ARTIFACT, metadata: undefined }],
      }),
    );
    bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'Export complete'));
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    bus.publish(statusEvent(taskId, '', TaskState.TASK_STATE_CANCELED, 'Export canceled'));
  };
}

export function exporterSpec(artifactBytes: number): AgentSpec {
  return {
    name: 'exporter',
    description: 'Exports a data set as one binary artifact, export.bin.',
    skills: [skill('export', 'Export', 'Returns export.bin', ['Export the data set'])],
    createBehaviour: () => ({ executor: new Exporter(artifactBytes), shutdown: () => undefined }),
  };
}
