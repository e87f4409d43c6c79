import { proxyActivities } from '@temporalio/workflow';

const { step } = proxyActivities<{ step(name: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

/** Before the change: one activity. */
export async function upgradeDemo(): Promise<string> {
  return step('answer');
}
