import { previewLines } from '../../contract/people/approvals';
import { inboxLink, type WebhookBody, type WebhookNotice, type WebhookPending } from '../../contract/webhooks/webhooks';

/** The JSON body of a notice, with the inbox links when `inboxUrl` (`WAVELOOP_INBOX_URL`) is known. */
export function webhookBody(notice: WebhookNotice, inboxUrl: string | undefined): WebhookBody {
  const { root, ...told } = notice;
  return {
    ...told,
    ...(inboxUrl ? { link: inboxLink(inboxUrl, notice.workflowId) } : {}),
    ...(root
      ? { root: { workflowId: root.workflowId, ...(inboxUrl ? { link: inboxLink(inboxUrl, root.workflowId) } : {}) } }
      : {}),
  };
}

/** A Slack message (an incoming webhook's `{ text, blocks }`): what happened, the goal, the tool and reason or the question, the inbox link. */
export function slackMessage(body: WebhookBody): { text: string; blocks: unknown[] } {
  const headline = `${HEADLINES[body.event]} · ${body.workflowId}`;
  const lines = [
    `*Goal:* ${escapeSlack(body.goal)}`,
    ...(body.startedBy ? [`*Started by:* ${escapeSlack(body.startedBy)}`] : []),
    ...pendingLines(body.pending),
  ];
  if (body.status && body.event !== 'failed') lines.push(`*Status:* ${body.status}`);
  if (body.error) lines.push(`*Error:* ${escapeSlack(body.error)}`);
  if (body.answer) lines.push(`*Answer:* ${escapeSlack(body.answer)}`);
  if (body.record)
    lines.push(`*Record:* ${body.record.seq} · ${body.record.kind} · ${escapeSlack(body.record.person ?? '')}`);
  const link = body.link ?? body.root?.link;
  const blocks: unknown[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(headline)}*` } },
    { type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } },
  ];
  if (link) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `<${link}|Open in the inbox>` } });
  return { text: `${headline}: ${body.goal}${link ? ` ${link}` : ''}`, blocks };
}

const HEADLINES: Record<WebhookBody['event'], string> = {
  waiting_for_approval: 'A call waits for approval',
  waiting_for_input: 'A question waits for an answer',
  waiting_for_message: 'A conversation waits for your message',
  completed: 'A run ended',
  cancelled: 'A run was cancelled',
  failed: 'A run failed',
  audit: 'An audit record was written',
};

function pendingLines(pending: WebhookPending | undefined): string[] {
  if (!pending) return [];
  if ('question' in pending) return [`*Question:* ${escapeSlack(pending.question)}`];
  return [
    `*Tool:* \`${pending.tool}\` ${escapeSlack(JSON.stringify(pending.args))}`,
    ...(pending.reason ? [`*Reason:* ${escapeSlack(pending.reason)}`] : []),
    ...(pending.preview ? previewLines(pending.preview).map((line) => `*Would change:* ${escapeSlack(line)}`) : []),
    ...(pending.approvers || pending.quorum
      ? [
          `*Needs:* ${escapeSlack(pending.approvers ?? 'anyone')}${pending.quorum ? `, ${pending.quorum} approvals` : ''}`,
        ]
      : []),
    ...(pending.deadline ? [`*Decided by its deadline at:* ${pending.deadline}`] : []),
  ];
}

/** Slack's mrkdwn escapes: `&`, `<` and `>` (tool arguments and answers can hold anything). */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
