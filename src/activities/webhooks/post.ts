import { ApplicationFailure, log } from '@temporalio/activity';
import { FailureType } from '../../contract/errors';
import { runWebhookRefusal, type ResolveHost } from '../../contract/webhooks/allow';
import { isSlackUrl, targetUrl, type PostWebhookInput, type PostWebhookOutput } from '../../contract/webhooks/webhooks';
import { slackMessage, webhookBody } from './body';
import { resolveHost } from './resolve-host';
import { SIGNATURE_HEADER, webhookSignature } from './signature';

/** What the worker knows of webhooks: the secret that signs them and where the inbox is. */
export interface WebhookDeps {
  /** `WAVELOOP_WEBHOOK_SECRET`; without it webhooks are sent unsigned. */
  secret?: string;
  /** `WAVELOOP_INBOX_URL`: the base URL of `waveloop serve`, for the links; without it there are none. */
  inboxUrl?: string;
  /** The time, in Unix milliseconds, that signatures carry (default `Date.now`). */
  now?: () => number;
  /** `WAVELOOP_WEBHOOK_ALLOW`: what a URL the run's input named must match, checked again before each post. */
  allow?: readonly string[];
  /** Resolves a host to its addresses (default: node:dns; tests fake it). */
  resolveHost?: ResolveHost;
}

/** How long one request may take before the attempt gives up (the activity then tries again). */
const REQUEST_TIMEOUT_MS = 20_000;

/**
 * `postWebhook`: posts a notice to one URL, signed with the worker's secret at the time of this
 * attempt, with the delivery id (`X-Waveloop-Delivery`) that every attempt of this notice shares. A
 * 2xx answer delivers it. A 4xx other than 408 and 429 fails it for good (`WebhookRefused`,
 * logged), and so do a redirect (3xx: never followed, whatever the URL) and a URL that fetch will
 * never request (`unsendable`); anything else (no answer, 408, 429, 5xx) fails this attempt
 * (`WebhookUndelivered`), and Temporal tries again with backoff (`WEBHOOK_ACTIVITY_OPTIONS`). A URL
 * the run's own input named (`runNamed`) is checked again first, as `resolveRun` checked it, since
 * its host's addresses may have changed since (`runWebhookRefusal`): refused for good when it no
 * longer passes, tried again when its host does not resolve.
 */
export function createPostWebhook(deps: WebhookDeps) {
  return async function postWebhook({
    deliveryId,
    url,
    notice,
    runNamed,
  }: PostWebhookInput): Promise<PostWebhookOutput> {
    if (runNamed) await checkRunNamed(url, deps);
    const body = webhookBody(notice, deps.inboxUrl);
    const raw = JSON.stringify(isSlackUrl(url) ? slackMessage(body) : body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'waveloop-webhooks',
      'x-waveloop-event': notice.event,
      'x-waveloop-delivery': deliveryId,
    };
    if (deps.secret) {
      const timestamp = Math.floor((deps.now ?? Date.now)() / 1000);
      headers[SIGNATURE_HEADER.toLowerCase()] = webhookSignature(deps.secret, timestamp, raw);
    }
    const where = redacted(url);
    let response: Response;
    try {
      response = await fetch(targetUrl(url), {
        method: 'POST',
        headers,
        body: raw,
        redirect: 'manual',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      const never = unsendable(err, url);
      // Not logged here: deliverWebhooks logs the delivery it gives up, with this message.
      if (never)
        throw ApplicationFailure.create({
          type: FailureType.WebhookRefused,
          message: `The webhook ${where} cannot be sent: ${never}.`,
          nonRetryable: true,
        });
      throw ApplicationFailure.create({
        type: FailureType.WebhookUndelivered,
        message: `The webhook ${where} could not be reached: ${(err as Error).cause ?? (err as Error).message}`,
      });
    }
    // The answer's body is not needed; reading it frees the connection.
    await response.arrayBuffer().catch(() => undefined);
    const { status } = response;
    if (status >= 200 && status < 300) return { status };
    if (status >= 300 && status < 400) {
      const to = redirectTarget(response.headers.get('location'), url);
      log.warn(`The webhook ${where} answered HTTP ${status} to ${to}; a webhook never follows a redirect.`);
      throw ApplicationFailure.create({
        type: FailureType.WebhookRefused,
        message: `The webhook ${where} answered HTTP ${status}, a redirect to ${to}: webhooks never follow redirects, so it is not sent again (name the URL it points to instead).`,
        nonRetryable: true,
      });
    }
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      log.warn(
        `The webhook ${where} refused ${notice.event} of ${notice.workflowId} (HTTP ${status}); not sent again.`,
      );
      throw ApplicationFailure.create({
        type: FailureType.WebhookRefused,
        message: `The webhook ${where} refused the ${notice.event} notice of ${notice.workflowId} (HTTP ${status}).`,
        nonRetryable: true,
      });
    }
    throw ApplicationFailure.create({
      type: FailureType.WebhookUndelivered,
      message: `The webhook ${where} answered HTTP ${status} to the ${notice.event} notice of ${notice.workflowId}.`,
    });
  };
}

/**
 * Refuses a URL the run's own input named that `WAVELOOP_WEBHOOK_ALLOW` no longer allows, or that
 * now resolves to a non-public address (`WebhookRefused`, not retried); a host that does not
 * resolve fails this attempt only (`WebhookUndelivered`), as it would in fetch.
 */
async function checkRunNamed(url: string, deps: WebhookDeps): Promise<void> {
  let refusal: string | undefined;
  try {
    refusal = await runWebhookRefusal(url, deps.allow ?? [], deps.resolveHost ?? resolveHost);
  } catch (err) {
    throw ApplicationFailure.create({
      type: FailureType.WebhookUndelivered,
      message: `The webhook ${redacted(url)} could not be checked: its host does not resolve (${(err as Error).message}).`,
    });
  }
  if (refusal)
    throw ApplicationFailure.create({
      type: FailureType.WebhookRefused,
      // Logs show a URL's origin only (a Slack URL's path is its secret).
      message: `${refusal.split(url.trim()).join(redacted(url))} Not sent.`,
      nonRetryable: true,
    });
}

/** Where a redirect pointed (its origin and path; a query may hold a secret), or that it did not say. */
function redirectTarget(location: string | null, url: string): string {
  if (!location) return '(no Location header)';
  try {
    const to = new URL(location, targetUrl(url));
    return `${to.origin}${to.pathname}`;
  } catch {
    return '(an unreadable Location)';
  }
}

/**
 * Why fetch will never send a request to `url`, as it said in `err`, or undefined when the request
 * failed on its way and may pass later. Never sent: a port fetch blocks (`bad port`: 25, 6000 and
 * the other ports of the Fetch standard's list, whatever listens there), and a request fetch could
 * not make at all (a `TypeError` without a network cause, e.g. a user name or password in the URL).
 * Tried again: no answer in time, a name that does not resolve (a receiver's DNS record may come),
 * and a connection refused, even on a loopback address: a receiver being restarted refuses for a
 * moment, and a retry costs a request at growing intervals, while a notice given up is lost.
 */
function unsendable(err: unknown, url: string): string | undefined {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  let target: URL;
  try {
    target = new URL(targetUrl(url));
  } catch {
    return 'it is not a URL fetch can read';
  }
  if (cause instanceof Error && cause.message === 'bad port')
    return `fetch never sends to port ${target.port} (a port the Fetch standard blocks); use another port`;
  if (err instanceof TypeError && cause === undefined)
    return target.username || target.password
      ? 'fetch does not send a request to a URL with a user name or password in it'
      : 'fetch cannot make a request of it';
  return undefined;
}

/** The URL as logs may show it: its origin only (a Slack URL's path is its secret). */
export function redacted(url: string): string {
  try {
    return new URL(targetUrl(url)).origin;
  } catch {
    return '(unreadable URL)';
  }
}
