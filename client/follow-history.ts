// Watching a workflow move without touching it: long-poll its history (GetWorkflowExecutionHistory
// with waitNewEvent, as `temporal workflow show --follow` does). Any process can do it for any
// workflow, and a watcher adds no event. Callers read the state they show (a query) when told it
// moved: the CLI's `run`, the demo, and the API's plan event stream.
import { isGrpcDeadlineError, isGrpcServiceError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';

export type HistoryMove =
  /** New events in the open run `runId` (the first poll returns the history so far). */
  | { kind: 'moved'; runId: string }
  /** Temporal did not answer this poll; the watch goes on after a pause. */
  | { kind: 'unavailable'; message: string }
  /** The workflow closed (its last run, after any continue-as-new). */
  | { kind: 'closed'; description: WorkflowExecutionDescription };

export interface FollowHistoryOptions {
  /** The run to start with (default: the current one). */
  runId?: string;
  /** Stops the watch: the generator returns. */
  signal?: AbortSignal;
}

/** The server answers a long poll within about 20 s when nothing happens; this bounds a poll that hangs. */
const LONG_POLL_MS = 70_000;
const UNAVAILABLE_PAUSE_MS = 1000;
const GRPC_UNAVAILABLE = 14;

export async function* followHistory(client: Client, workflowId: string, opts: FollowHistoryOptions = {}): AsyncGenerator<HistoryMove> {
  const { signal } = opts;
  let runId = opts.runId ?? (await client.workflow.getHandle(workflowId).describe()).runId;
  let token: Uint8Array | undefined;
  while (!signal?.aborted) {
    let res;
    try {
      res = await poll(client, signal, () =>
        client.withDeadline(Date.now() + LONG_POLL_MS, () =>
          client.workflowService.getWorkflowExecutionHistory({
            namespace: client.options.namespace,
            execution: { workflowId, runId },
            ...(token ? { nextPageToken: token } : {}),
            waitNewEvent: true,
            maximumPageSize: 1000,
          }),
        ),
      );
    } catch (err) {
      if (signal?.aborted) return;
      if (isGrpcDeadlineError(err)) continue; // a quiet workflow: poll again
      if (isGrpcServiceError(err) && err.code === GRPC_UNAVAILABLE) {
        yield { kind: 'unavailable', message: `Temporal did not answer: ${err.details || err.message}` };
        await new Promise((r) => setTimeout(r, UNAVAILABLE_PAUSE_MS));
        continue;
      }
      throw err;
    }
    // While the run is open the server always hands back a token to wait with; none means it closed.
    token = res.nextPageToken && res.nextPageToken.length > 0 ? res.nextPageToken : undefined;
    if (token) {
      if ((res.history?.events?.length ?? 0) > 0) yield { kind: 'moved', runId };
      continue;
    }
    const description = await client.workflow.getHandle(workflowId).describe();
    if (description.status.name === 'RUNNING' && description.runId !== runId) {
      runId = description.runId; // continued as new: follow the next run from its start
      yield { kind: 'moved', runId };
      continue;
    }
    yield { kind: 'closed', description };
    return;
  }
}

/** One abort signal per poll, tied to the caller's: the SDK leaves a listener on the signal it is given, so a long watch would pile them up. */
async function poll<T>(client: Client, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  if (!signal) return call();
  const per = new AbortController();
  const abort = (): void => per.abort();
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await client.withAbortSignal(per.signal, call);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}
