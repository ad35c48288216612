// Help text shared by the commands: the Examples section every command ends with, and what the
// top-level help says about exit codes and the connection.

/** An "Examples:" section for addHelpText('after', ...): one command per line, `#` lines explain. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

export const EXIT_CODES_HELP = `
Exit codes:
  0  done
  1  failed at run time (Temporal unreachable, unknown workflow id, rejected answer, task failed under --wait)
  2  bad command line or environment (unknown command or flag, missing or bad value); nothing was sent
  3  planner answer: no worker polls the task queue; the answer is recorded and is sent when one starts`;

export const CONNECTION_HELP = `
Connection (read like the worker reads it):
  TEMPORAL_ADDRESS    Temporal frontend, host:port (default 127.0.0.1:7233)
  TEMPORAL_NAMESPACE  namespace (default "default")
  PLANNER_TASK_QUEUE  the planner's task queue (default "planner"; watches run on <queue>-watch)
  PLANNER_BLOB_DIR    blob store for large payloads, shared with the workers (default .planner/blobs)`;
