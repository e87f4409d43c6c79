/** No workflow (agent run, goal tree or other) has the id a command was given. */
export class UnknownWorkflowError extends Error {
  override readonly name = 'UnknownWorkflowError';

  constructor(readonly workflowId: string) {
    super(`No run or goal tree with id ${workflowId}.`);
  }
}
