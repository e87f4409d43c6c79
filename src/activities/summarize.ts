import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { SummarizeInput, SummarizeOutput } from '../contract/activity-io';
import type { ChatMessage } from '../contract/agent-loop';
import { withHeartbeats } from './heartbeat';
import { chat } from './model/chat';
import { EndpointQuirks } from './model/endpoint-quirks';
import { toModelFailure } from './model/errors';

const SUMMARY_INSTRUCTIONS =
  'You compress the earlier part of an agent run so it can go on with less context. Summarise the ' +
  'messages below: what was asked, which tools were called with which key arguments and ids, what ' +
  'they returned that still matters, decisions made and what is still open. Be brief and factual; ' +
  'keep ids, names, dates and numbers exactly.';

/**
 * Summarises messages [from, to) of a run's transcript (read through its `transcript` query, like
 * the model call) for the hand-over to a new run.
 */
export function createSummarize(deps: {
  openai: OpenAI;
  readTranscript(workflowId: string, runId: string, count: number): Promise<ChatMessage[]>;
  /** What the endpoint refused so far (shared by the worker's model activities). */
  quirks?: EndpointQuirks;
}) {
  const quirks = deps.quirks ?? new EndpointQuirks();
  return async function summarizeTranscript(input: SummarizeInput): Promise<SummarizeOutput> {
    const messages = (await deps.readTranscript(input.workflowId, input.runId, input.to)).slice(input.from, input.to);
    const text = clipped(messages.map(render), input.maxChars).join('\n');
    const request = {
      model: input.model,
      messages: [
        { role: 'system' as const, content: SUMMARY_INSTRUCTIONS },
        { role: 'user' as const, content: text },
      ],
    };
    const reply = await withHeartbeats(async () => {
      try {
        return await chat(deps.openai, request, {
          signal: Context.current().cancellationSignal,
          timeoutMs: Context.current().info.startToCloseTimeoutMs,
          quirks,
        });
      } catch (err) {
        throw toModelFailure(err, deps.openai.baseURL);
      }
    });
    return { summary: reply.message.content?.trim() || '(no summary)', usage: reply.usage };
  };
}

/**
 * The rendered messages, each clipped to an equal share of `maxChars` (at least 200 characters) when
 * together they are longer: the summary keeps every message's start rather than the first few whole.
 */
export function clipped(lines: string[], maxChars: number | undefined): string[] {
  const total = lines.reduce((n, line) => n + line.length, 0);
  if (maxChars === undefined || total <= maxChars) return lines;
  const share = Math.max(200, Math.floor(maxChars / lines.length));
  return lines.map((line) =>
    line.length <= share ? line : `${line.slice(0, share)}… (${line.length - share} characters clipped)`,
  );
}

function render(message: ChatMessage): string {
  switch (message.role) {
    case 'assistant': {
      const calls = (message.tool_calls ?? []).map((c) => `${c.function.name}(${c.function.arguments}) [${c.id}]`);
      return `assistant: ${message.content ?? ''}${calls.length ? ` calls ${calls.join(', ')}` : ''}`;
    }
    case 'tool':
      return `tool result [${message.tool_call_id}]: ${message.content}`;
    default:
      return `${message.role}: ${message.content}`;
  }
}
