// Reading one artifact of a completed delegated task (CLI `planner artifact`, API /v1/artifacts):
// the workflow's result, decoded through the planner's data converter, so an artifact that the
// claim-check codec moved to the blob store comes back whole.
import type { Client } from '@temporalio/client';
import type { Artifact } from '../a2a/schema';
import type { DelegatedTaskWorkflow } from '../workflows/delegated-task/workflow';
import type { DelegatedTaskResult } from '../workflows/delegated-task/input';
import { requireTask } from './delegated-task';

/** The task has no such artifact, or cannot have one now (running, failed); the message says which. */
export class ArtifactUnavailableError extends Error {
  override readonly name = 'ArtifactUnavailableError';
  constructor(
    message: string,
    /** running: not yet; ended: the task did not complete; missing: no such artifact; link: a part held elsewhere. */
    readonly reason: 'running' | 'ended' | 'missing' | 'link' = 'missing',
  ) {
    super(message);
  }
}

export interface ArtifactContent {
  workflowId: string;
  artifactId: string;
  name?: string;
  /** The first part's media type, when it names one. */
  mediaType?: string;
  /** What the parts hold: all text, all data (JSON), all raw bytes, or a mix. */
  kind: 'text' | 'data' | 'raw' | 'mixed';
  /** The parts in order: text as UTF-8, raw as its bytes, data as JSON. */
  bytes: Buffer;
}

/**
 * The artifact called `name` (or with that artifactId) of the completed task `workflowId`.
 * Throws DelegatedTaskNotFoundError (client/delegated-task.ts) or ArtifactUnavailableError.
 */
export async function readArtifact(client: Client, workflowId: string, name: string): Promise<ArtifactContent> {
  const desc = await requireTask(client, workflowId);
  const status = desc.status.name;
  if (status === 'RUNNING') throw new ArtifactUnavailableError(`${workflowId} is still running; its artifacts can be read once it completes`, 'running');
  if (status !== 'COMPLETED') throw new ArtifactUnavailableError(`${workflowId} ended ${status}, not COMPLETED: it has no artifacts to read`, 'ended');
  const result: DelegatedTaskResult = await client.workflow.getHandle<typeof DelegatedTaskWorkflow>(workflowId).result();
  const artifacts = result.artifacts ?? [];
  const artifact = artifacts.find((a) => a.name === name) ?? artifacts.find((a) => a.artifactId === name);
  if (!artifact) {
    const names = artifacts.map((a) => JSON.stringify(a.name ?? a.artifactId));
    throw new ArtifactUnavailableError(`no artifact named ${JSON.stringify(name)} in ${workflowId} (${names.length ? `it has ${names.join(', ')}` : 'it has none'})`);
  }
  const mediaType = artifact.parts[0]?.mediaType;
  return {
    workflowId,
    artifactId: artifact.artifactId,
    ...(artifact.name !== undefined ? { name: artifact.name } : {}),
    ...(mediaType ? { mediaType } : {}),
    kind: kindOf(artifact),
    bytes: contentOf(artifact),
  };
}

/** An artifact's content as bytes. A part given by URL is not held by the planner: that is an error naming the URL. */
export function contentOf(artifact: Artifact): Buffer {
  return Buffer.concat(
    artifact.parts.map((p, i) => {
      if ('text' in p) return Buffer.from(p.text, 'utf8');
      if ('raw' in p) return Buffer.from(p.raw, 'base64');
      if ('data' in p) return Buffer.from(`${JSON.stringify(p.data, null, 2)}\n`, 'utf8');
      throw new ArtifactUnavailableError(`part ${i + 1} of artifact ${JSON.stringify(artifact.name ?? artifact.artifactId)} is a link, not content: ${p.url}`, 'link');
    }),
  );
}

function kindOf(artifact: Artifact): ArtifactContent['kind'] {
  const kinds = new Set(artifact.parts.map((p) => ('text' in p ? 'text' : 'raw' in p ? 'raw' : 'data' in p ? 'data' : 'link')));
  const [only] = kinds;
  return kinds.size === 1 && only !== 'link' ? only! : 'mixed';
}
