import { z } from 'zod';

/**
 * A webhook's URL: an `http:` or `https:` URL, or one written `slack:<url>`, which gets a
 * Slack-shaped message (as every URL on `hooks.slack.com` does). What else is refused names the URL.
 */
export const WebhookUrlSchema = z
  .string()
  .trim()
  .refine((url) => webhookUrlProblem(url) === undefined, {
    error: (issue) => webhookUrlProblem(String(issue.input)) ?? 'not a webhook URL',
  });

/** At most this many webhooks for one run (the worker's, its agent's and its own together are not limited). */
export const MAX_RUN_WEBHOOKS = 10;

/** A run's or an agent's webhooks: distinct URLs, checked one by one. */
export const WebhookUrlsSchema = z
  .array(WebhookUrlSchema)
  .max(MAX_RUN_WEBHOOKS, `at most ${MAX_RUN_WEBHOOKS} webhooks`);

/** Why `url` cannot be a webhook, or undefined when it can. */
export function webhookUrlProblem(url: string): string | undefined {
  const target = url.trim().replace(/^slack:/i, '');
  let parsed: URL;
  try {
    parsed = new URL(target);
  } catch {
    return `a webhook must be an http(s) URL (or slack:<url>), not "${url}"`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `a webhook must be an http(s) URL (or slack:<url>), not "${url}" (${parsed.protocol.slice(0, -1)})`;
  return undefined;
}
