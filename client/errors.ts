// The errors the client library throws for a caller's mistake, in a file of their own that loads
// nothing else: the CLI maps them to exit codes (cli/errors.ts) without loading the Temporal client.

export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
}

/** No delegated-task workflow has this id (none at all, or the id names another kind of workflow). */
export class DelegatedTaskNotFoundError extends Error {
  override readonly name = 'DelegatedTaskNotFoundError';
  constructor(
    readonly workflowId: string,
    detail?: string,
  ) {
    super(`no delegated task with id ${workflowId}${detail ? ` (${detail})` : ''}`);
  }
}
