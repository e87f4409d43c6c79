import { patched, proxyActivities } from '@temporalio/workflow';

const { step } = proxyActivities<{ step(name: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

/** After the change, guarded: runs that started before it skip the new step when they replay. */
export async function upgradeDemo(): Promise<string> {
  if (patched('check-before-answer')) await step('check');
  return step('answer');
}
