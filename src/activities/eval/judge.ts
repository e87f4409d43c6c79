import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { Score } from '../../contract/eval/eval';
import type { ScoredRun } from '../../contract/eval/scorer';
import { chat } from '../model/chat';
import type { EndpointQuirks } from '../model/endpoint-quirks';
import { toModelFailure } from '../model/errors';

const JUDGE_INSTRUCTIONS =
  "You judge an AI agent's answer to a goal by the criteria given. Reply with JSON only: " +
  '{"pass": true or false, "reason": "one sentence"}.';

/**
 * The model-judged scorer (`expect.judge`): asks `model`, at the run's endpoint (the worker's), whether
 * the answer meets the criteria; the score's detail names the model and the endpoint. A reply that is
 * not a verdict, or a call the endpoint refuses, fails the case; an endpoint that is down throws (the
 * activity retries).
 */
export async function judge(
  run: ScoredRun,
  criteria: string,
  { openai, model, quirks }: { openai: OpenAI; model: string; quirks: EndpointQuirks },
): Promise<Score> {
  const by = `judged by ${model} at ${openai.baseURL}`;
  if (!run.result) return { pass: false, detail: `the run failed: ${run.failure} (not judged)` };
  const request = {
    model,
    messages: [
      { role: 'system' as const, content: JUDGE_INSTRUCTIONS },
      {
        role: 'user' as const,
        content: `Goal: ${run.case.goal}\n\nAnswer: ${run.result.answer}\n\nCriteria: ${criteria}`,
      },
    ],
  };
  let content: string;
  try {
    const reply = await chat(openai, request, { signal: Context.current().cancellationSignal, quirks });
    content = reply.message.content ?? '';
  } catch (err) {
    const failure = toModelFailure(err, openai.baseURL);
    if (failure.nonRetryable) return { pass: false, detail: `${by}: the judge's call failed: ${failure.message}` };
    throw failure;
  }
  const verdict = readVerdict(content);
  if (!verdict) return { pass: false, detail: `${by}: the reply was not a verdict: ${content.slice(0, 120)}` };
  return { pass: verdict.pass, detail: `${by}${verdict.reason ? `: ${verdict.reason}` : ''}` };
}

/** `{ pass, reason }` from the judge's reply: its first JSON object. */
function readVerdict(content: string): { pass: boolean; reason?: string } | undefined {
  const json = /\{[\s\S]*\}/.exec(content)?.[0];
  if (!json) return undefined;
  try {
    const value = JSON.parse(json) as { pass?: unknown; reason?: unknown };
    if (typeof value.pass !== 'boolean') return undefined;
    return { pass: value.pass, ...(typeof value.reason === 'string' ? { reason: value.reason } : {}) };
  } catch {
    return undefined;
  }
}
