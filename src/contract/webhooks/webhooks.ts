/**
 * The contract of webhooks (docs/webhooks.md): what a run tells, the `deliverWebhooks` workflow that
 * sends it, and the `postWebhook` activity that posts it to one URL. No zod here: workflow code imports it.
 */

import type { AuditRecord } from '../audit/records';
import type { CallPreview } from '../people/approvals';

export const DELIVER_WEBHOOKS_WORKFLOW = 'deliverWebhooks';

/**
 * What a webhook tells: a run waits for a person (`waiting_for_approval`, `waiting_for_input`: a
 * question, `waiting_for_message`: a conversation's next message), or it ended: `completed` (any
 * result, its `status` says how: `completed`, `max_iterations`, `budget_exhausted`, `deadline`,
 * `circuit_open`, `invalid_output`; a goal tree's: `achieved`, `synthesized`, `constrained`, …),
 * `cancelled`, or `failed`; or a record of the run's audit trail was written (`audit`, to the
 * worker's `WAVELOOP_AUDIT_WEBHOOKS` only).
 */
export type WebhookEvent =
  'waiting_for_approval' | 'waiting_for_input' | 'waiting_for_message' | 'completed' | 'cancelled' | 'failed' | 'audit';

/** What waits: a call for approval (with its rule's reason and its deadline), or a question. */
export type WebhookPending =
  | {
      callId: string;
      tool: string;
      args: Record<string, unknown>;
      reason?: string;
      /** When the call's deadline decides it (ISO 8601). */
      deadline?: string;
      /** What the call would change (its tool's `preview`), or why that could not be read. */
      preview?: CallPreview;
      /** Who may decide (the rule's words: `finance`), when not anyone. */
      approvers?: string;
      /** How many people must approve, when more than one. */
      quorum?: number;
      /**
       * Not an approval: a `write` call that may or may not have run waits for a person to say
       * whether it happened, to run it again, or to give up (docs/effects.md#unknown-outcomes).
       */
      unknownOutcome?: true;
    }
  | { callId: string; question: string };

/** What the run tells, as the workflow knows it: the body of the webhook without its inbox links. */
export interface WebhookNotice {
  event: WebhookEvent;
  workflowId: string;
  /** The run (of the chain, after a hand-over) that told it. */
  runId: string;
  /** The run's or the goal tree's goal, at most `NOTICE_TEXT_CHARS` characters. */
  goal: string;
  /** How the run ended (`completed`, `cancelled`), or `failed`. */
  status?: string;
  pending?: WebhookPending;
  /** The answer (short), of an ended run, or the turn's message of a conversation that waits. */
  answer?: string;
  /** The typed output of an ended run, when its JSON is at most `NOTICE_OUTPUT_CHARS` characters. */
  output?: unknown;
  /** Why the run failed. */
  error?: string;
  /** Who started the run (`unknown` when its client did not say). */
  startedBy?: string;
  /** The goal tree this run belongs to, when it is one of its tool loops: its root's workflow id. */
  root?: { workflowId: string };
  /** When it happened (ISO 8601, the run's time). */
  at: string;
  /** An `audit` notice's record, as the store holds it: its place in the chain and its hashes. */
  record?: AuditRecord;
}

/**
 * The webhook's JSON body: the notice, and the inbox links when the worker knows where the inbox is
 * (`WAVELOOP_INBOX_URL`): the run's page and, for a goal tree's tool loop, the tree's.
 */
export type WebhookBody = Omit<WebhookNotice, 'root'> & {
  link?: string;
  root?: { workflowId: string; link?: string };
};

/** The input of `deliverWebhooks`: one notice to every URL, under one delivery id. */
export interface DeliverWebhooksInput {
  /** The same for every attempt to deliver this notice, different for every other (`X-Waveloop-Delivery`). */
  deliveryId: string;
  urls: string[];
  notice: WebhookNotice;
  /**
   * The URLs of `urls` that the run's own input named (absent: none): each is checked again
   * against `WAVELOOP_WEBHOOK_ALLOW` and its resolved addresses when it is posted.
   */
  runNamed?: string[];
}

/** The input of `postWebhook`: the notice to one URL. */
export interface PostWebhookInput {
  deliveryId: string;
  url: string;
  notice: WebhookNotice;
  /** The run's own input named `url`: it is checked again before it is posted (docs/webhooks.md#what-a-run-may-name). */
  runNamed?: boolean;
}

/** How a delivery to one URL ended: its receiver's HTTP status, or why it was given up. */
export interface PostWebhookOutput {
  status: number;
}

/** The longest goal or answer a notice carries (a longer one is cut with `…`). */
export const NOTICE_TEXT_CHARS = 1_000;
/** The longest typed output (as JSON) a notice carries; a longer one is left out. */
export const NOTICE_OUTPUT_CHARS = 4_000;

/** `text` cut to `max` characters, with `…` when cut. */
export function clipText(text: string, max = NOTICE_TEXT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Whether `url` gets a Slack-shaped message: a `slack:` URL, or an incoming webhook of hooks.slack.com. */
export function isSlackUrl(url: string): boolean {
  if (/^slack:/i.test(url)) return true;
  try {
    return new URL(url).hostname === 'hooks.slack.com';
  } catch {
    return false;
  }
}

/** The URL a request goes to (a `slack:` URL without its prefix). */
export function targetUrl(url: string): string {
  return url.replace(/^slack:/i, '');
}

/** The inbox page of run `workflowId` under `base` (`WAVELOOP_INBOX_URL`): `<base>/runs/<id>`. */
export function inboxLink(base: string, workflowId: string): string {
  return `${base.replace(/\/+$/, '')}/runs/${encodeURIComponent(workflowId)}`;
}
