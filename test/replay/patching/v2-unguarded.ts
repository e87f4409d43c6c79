import { proxyActivities } from '@temporalio/workflow';

const { step } = proxyActivities<{ step(name: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

/** The same change without the guard: runs in flight cannot replay it. */
export async function upgradeDemo(): Promise<string> {
  await step('check');
  return step('answer');
}
