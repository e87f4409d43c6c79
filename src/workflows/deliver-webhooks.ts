import { ActivityFailure, log, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { WEBHOOK_ACTIVITY_OPTIONS } from '../contract/activity-options';
import type { DeliverWebhooksInput } from '../contract/webhooks/webhooks';

const { postWebhook } = proxyActivities<ReturnType<typeof createActivities>>(WEBHOOK_ACTIVITY_OPTIONS);

/** How the delivery to each URL ended, in the order of the URLs: the receiver's status, or why it was given up. */
export type DeliveryOutcome = { status: number } | { undelivered: string };

/**
 * Delivers one notice of a run to each of its webhooks at once (`postWebhook`, retried with backoff
 * until the receiver answers 2xx: `WEBHOOK_ACTIVITY_OPTIONS`). The run starts it as a child it
 * does not wait for and that outlives it (docs/webhooks.md), so a slow or failing receiver never
 * holds the run back, and a notice told as the run ends is still delivered. A receiver that
 * refuses (4xx), redirects (3xx, never followed) or never answers is logged and ends this workflow
 * normally: a delivery never fails. A URL the run's own input named (`runNamed`) is checked again
 * as it is posted (docs/webhooks.md#what-a-run-may-name).
 */
export async function deliverWebhooks({
  deliveryId,
  urls,
  notice,
  runNamed = [],
}: DeliverWebhooksInput): Promise<DeliveryOutcome[]> {
  return Promise.all(
    urls.map(async (url, index): Promise<DeliveryOutcome> => {
      try {
        return await postWebhook.executeWithOptions(
          { ...WEBHOOK_ACTIVITY_OPTIONS, summary: `webhook ${index + 1}/${urls.length} · ${notice.event}` },
          [{ deliveryId, url, notice, ...(runNamed.includes(url) ? { runNamed: true } : {}) }],
        );
      } catch (err) {
        const why = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err);
        log.warn(`Webhook ${index + 1} of ${deliveryId} was not delivered: ${why}`);
        return { undelivered: why };
      }
    }),
  );
}
