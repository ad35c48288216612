// GET /v1/artifacts/:workflowId/:name: an artifact's bytes of the caller's own task (ownership.ts),
// read through client/artifact.ts (the claim-check codec brings back what it moved to the blob
// store), with the part's content type.
import { Router } from 'express';
import { ArtifactUnavailableError, readArtifact, type ArtifactContent } from '../../client/artifact';
import { DelegatedTaskNotFoundError } from '../../client/delegated-task';
import { callerOfResponse } from '../auth';
import type { ApiContext } from '../context';
import { ApiError, conflict, notFound, parseOr400 } from '../errors';
import { requireOwnedTask } from './ownership';
import { ArtifactParams } from './schemas';

/** The part's own media type; else what the content is (JSON for data parts, UTF-8 text, bytes). */
export function contentTypeOf(a: Pick<ArtifactContent, 'mediaType' | 'kind'>): string {
  if (a.mediaType) return a.mediaType;
  if (a.kind === 'data') return 'application/json';
  if (a.kind === 'text') return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

export function artifactsRouter(ctx: ApiContext): Router {
  const router = Router();
  router.get('/artifacts/:workflowId/:name', async (req, res) => {
    const { workflowId, name } = parseOr400(ArtifactParams, 'path', req.params);
    let content: ArtifactContent;
    try {
      await requireOwnedTask(ctx.temporal, callerOfResponse(res.locals), workflowId);
      content = await readArtifact(ctx.temporal, workflowId, name);
    } catch (err) {
      if (err instanceof DelegatedTaskNotFoundError) throw notFound(err.message);
      if (err instanceof ArtifactUnavailableError) {
        if (err.reason === 'running' || err.reason === 'ended') throw conflict(err.message);
        if (err.reason === 'link') throw new ApiError(404, 'not_found', err.message);
        throw notFound(err.message);
      }
      throw err;
    }
    const filename = (content.name ?? content.artifactId).replace(/[^\w.-]+/g, '_');
    res
      .status(200)
      .set({
        'Content-Type': contentTypeOf(content),
        'Content-Length': String(content.bytes.length),
        'Content-Disposition': `attachment; filename="${filename}"`,
        'X-Artifact-Id': content.artifactId,
      })
      .end(content.bytes);
  });
  return router;
}
