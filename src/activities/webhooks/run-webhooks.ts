import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contract/errors';
import { runWebhookRefusal, type ResolveHost } from '../../contract/webhooks/allow';
import { resolveHost } from './resolve-host';

/**
 * Refuses a run or a goal tree (`InvalidInput`, not retried) when its input names a webhook that
 * `WAVELOOP_WEBHOOK_ALLOW` does not allow, or one at a non-public address (`runWebhookRefusal`),
 * before it calls a model or tells anything: a raw client's start is held to what the HTTP API
 * checks. A host that does not resolve is refused too (its addresses cannot be checked).
 */
export async function refuseRunWebhooks(
  urls: readonly string[],
  allow: readonly string[],
  resolve: ResolveHost = resolveHost,
): Promise<void> {
  for (const url of urls) {
    const refusal = await runWebhookRefusal(url, allow, resolve).catch(
      (err: Error) => `The webhook ${url} is refused: its host does not resolve (${err.message}).`,
    );
    if (refusal)
      throw ApplicationFailure.create({ type: FailureType.InvalidInput, message: refusal, nonRetryable: true });
  }
}
