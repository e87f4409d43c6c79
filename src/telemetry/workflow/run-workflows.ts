/**
 * Whether a workflow of `workflowType` is a run, which the interceptors trace and count: an agent run
 * (`agentLoop`) or a goal tree (`pursueGoal`). An eval (`evalRun`) and a webhook's delivery
 * (`deliverWebhooks`) are not. The names are the workflow functions' (the contract's constants live
 * in modules with zod, which the workflow bundle leaves out).
 */
export function isRunWorkflow(workflowType: string): boolean {
  return workflowType === 'agentLoop' || workflowType === 'pursueGoal';
}
