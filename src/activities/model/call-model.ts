import { randomUUID } from 'node:crypto';
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { APIError } from 'openai';
import type OpenAI from 'openai';
import type { ModelCallInput, ModelCallOutput } from '../../contract/activity-io';
import type { ChatMessage } from '../../contract/agent-loop';
import { FailureType } from '../../contract/errors';
import type { RateLimitWait } from '../../contract/flow/rate-limit';
import { streamedText, type StreamedText } from '../../contract/model/streaming';
import type { AnyTool } from '../../tools/define';
import { withHeartbeats } from '../heartbeat';
import type { Registry } from '../registry';
import type { ToolResultCache } from '../tool-result-cache';
import { chat, type ChatReply } from './chat';
import { EndpointQuirks } from './endpoint-quirks';
import { toModelFailure } from './errors';
import { RateLimitGate } from './rate-limit-gate';
import { checkReply } from './reply';
import { modelCallRequest } from './request';
import { textToolCalls } from './text-tool-calls';
import { repairFeedback } from './tool-call-intent';
import { toolParametersSchema } from './tool-schema';
import { TranscriptCache } from './transcript-cache';
import { workflowToolOf } from './workflow-tools';

export interface ModelDeps {
  registry: Registry;
  /** The OpenAI-compatible client; built once by the worker. */
  openai: OpenAI;
  /** Reads the first `count` messages of a run's transcript (through the workflow's query). */
  readTranscript(workflowId: string, runId: string, count: number): Promise<ChatMessage[]>;
  /**
   * Stream replies from the endpoint and publish their text in heartbeats as it grows (default),
   * or ask for whole replies (`WAVELOOP_STREAM=false`, for endpoints that cannot stream).
   */
  stream?: boolean;
  /** The results of the tool calls this worker ran, which a `TranscriptSlice` refers to (shared with `runTool`). */
  toolResults?: ToolResultCache;
  /** Why the attempt before this one of an activity failed (from the run's pending activities), for the log. */
  previousFailure?(workflowId: string, runId: string, activityId: string): Promise<string | undefined>;
  /** What the endpoint refused so far (shared by the worker's model activities). */
  quirks?: EndpointQuirks;
  /** What the worker knows of the endpoint's rate limit; every call waits at it (shared by the worker's model calls). */
  gate?: RateLimitGate;
}

/**
 * One model call: Chat Completions with the run's tools, parallel tool calls allowed. The
 * transcript arrives as a `TranscriptSlice` and is completed from what this worker kept
 * (`receiveTranscript`).
 */
export function createCallModel({
  registry,
  openai,
  readTranscript,
  stream = true,
  toolResults,
  previousFailure,
  quirks = new EndpointQuirks(),
  gate = new RateLimitGate(),
}: ModelDeps) {
  const schemas = new Map<string, OpenAI.Chat.Completions.ChatCompletionTool>();
  const toolSchema = (tool: AnyTool) => {
    let schema = schemas.get(tool.name);
    if (!schema) {
      schema = {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: toolParametersSchema(tool) },
      };
      schemas.set(tool.name, schema);
    }
    return schema;
  };
  const transcripts = new TranscriptCache();

  return async function callModel(input: ModelCallInput): Promise<ModelCallOutput> {
    const { workflowId, runId } = input;
    const context = Context.current();
    if (context.info.attempt > 1 && !context.info.isLocal) await logRetry(input, previousFailure);
    const transcript = await receiveTranscript(input, { transcripts, toolResults, readTranscript });
    // A note for this call only goes after the transcript: what comes before stays byte for byte
    // what the last call sent, so the endpoint can reuse its prompt cache.
    const messages: ChatMessage[] = input.note ? [...transcript, { role: 'user', content: input.note }] : transcript;
    const tools = input.tools.map((name) => {
      const tool = registry.tools.get(name);
      // An agent the run offers as a tool, or a handoff: resolveRun made sure no tool has its name.
      const offered = tool ? undefined : workflowToolOf(name, registry);
      if (offered) return { type: 'function' as const, function: offered };
      if (!tool) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          message: `Tool "${name}" is not registered on this worker.`,
          nonRetryable: true,
        });
      }
      return toolSchema(tool);
    });

    const request = modelCallRequest(input, messages, tools);
    // Heartbeats carry the text as it grows, for followers: not a JSON plan's (no text for a
    // person), and not in a local activity (it has no heartbeats; its reply arrives whole).
    const publishes = input.planner === 'native' && !context.info.isLocal;
    let streamed: StreamedText | undefined;
    let held: RateLimitWait | undefined;
    const publish = (text: string, thinking: string) => {
      if (publishes)
        context.heartbeat((streamed = streamedText(input.iteration, context.info.attempt, text, thinking)));
    };
    const estimate = Math.ceil(JSON.stringify(request.messages).length / 4);
    const reply = await withHeartbeats(
      async () => {
        // Held at the worker's gate, the call says so in its heartbeats, for followers.
        await gate.pass(
          estimate,
          (until) => {
            held = { iteration: input.iteration, rateLimitedUntil: until };
            if (!context.info.isLocal) context.heartbeat(held);
          },
          context.cancellationSignal,
        );
        if (held && !context.info.isLocal) context.heartbeat((held = undefined));
        try {
          return await chat(openai, request, {
            signal: context.cancellationSignal,
            timeoutMs: context.info.startToCloseTimeoutMs,
            quirks,
            stream,
            onText: publish,
            onResponse: (status, headers) => gate.observe(status, headers),
          });
        } catch (err) {
          if (err instanceof APIError) gate.observe(err.status, err.headers);
          throw toModelFailure(err, openai.baseURL);
        }
      },
      () => streamed ?? held,
    );
    gate.used(estimate, reply.usage.totalTokens);

    const { usage, model, reasoning } = reply;
    const { message, finishReason, unreadableToolCall }: ReturnType<typeof recoverTextToolCalls> =
      input.toolCallText === 'off' ? reply : recoverTextToolCalls(reply, input);
    checkReply(message, finishReason, input.planner);
    const replyId = randomUUID();
    // A local call is always given the whole transcript: it never needs what the cache keeps.
    if (!context.info.isLocal) transcripts.remember(workflowId, runId, [...transcript, message], replyId);
    return {
      message,
      finishReason: finishReason ?? 'unknown',
      usage,
      ...(model ? { model } : {}),
      ...(reasoning ? { reasoning } : {}),
      ...(unreadableToolCall ? { unreadableToolCall } : {}),
      replyId,
      at: Date.now(),
    };
  };
}

/**
 * The whole transcript a model call sends: its slice, with each tool result reference filled from
 * the results this worker kept and the rest joined to the transcript this worker kept; whatever
 * misses is read through the run's `transcript` query (see `TranscriptSlice`).
 */
export async function receiveTranscript(
  { workflowId, runId, transcript: slice }: Pick<ModelCallInput, 'workflowId' | 'runId' | 'transcript'>,
  kept: { transcripts: TranscriptCache; toolResults?: ToolResultCache; readTranscript: ModelDeps['readTranscript'] },
): Promise<ChatMessage[]> {
  const messages: ChatMessage[] = [];
  for (const message of slice.messages) {
    if (!('result' in message)) {
      messages.push(message);
      continue;
    }
    const content = kept.toolResults?.take(workflowId, runId, message.tool_call_id, message.result);
    if (content === undefined) return kept.readTranscript(workflowId, runId, slice.count);
    messages.push({ role: 'tool', tool_call_id: message.tool_call_id, content });
  }
  const whole =
    slice.from === 0
      ? messages.length === slice.count
        ? messages
        : undefined
      : kept.transcripts.join(workflowId, runId, slice, messages);
  return whole ?? kept.readTranscript(workflowId, runId, slice.count);
}

/**
 * The reply with the tool calls its text holds (`textToolCalls`) as its tool calls, as if the
 * endpoint had parsed them: for a native reply without tool calls whose text consists of calls of
 * tools the run offers. A reply that names an offered tool with arguments but cannot be read comes
 * back as it came with `unreadableToolCall`, what the model is told in its repair turn. Any other
 * reply is returned as it came.
 */
function recoverTextToolCalls(
  reply: ChatReply,
  input: ModelCallInput,
): Pick<ChatReply, 'message' | 'finishReason'> & { unreadableToolCall?: string } {
  const { message } = reply;
  if (input.planner !== 'native' || message.tool_calls?.length || !message.content || input.tools.length === 0)
    return reply;
  const recovered = textToolCalls(message.content, new Set(input.tools), () => `call_${randomUUID()}`);
  if (!recovered) return reply;
  if ('unreadable' in recovered) {
    log.info('The model wrote a tool call as text that could not be read: it gets a repair turn', {
      iteration: input.iteration,
      tools: recovered.unreadable.tools,
      problem: recovered.unreadable.problem,
    });
    return { ...reply, unreadableToolCall: repairFeedback(recovered.unreadable) };
  }
  log.info('Read tool calls the model wrote as text', {
    iteration: input.iteration,
    tools: recovered.calls.map((call) => call.function.name),
  });
  return {
    message: { role: 'assistant', content: recovered.text, tool_calls: recovered.calls },
    finishReason: 'tool_calls',
  };
}

/** Logs, at INFO, that a model call is tried again, and why the attempt before failed (a timeout, the endpoint's error). */
async function logRetry(
  { workflowId, runId, iteration }: ModelCallInput,
  previousFailure: ModelDeps['previousFailure'],
): Promise<void> {
  const { attempt, activityId, retryPolicy } = Context.current().info;
  const cause = await previousFailure?.(workflowId, runId, activityId).catch(() => undefined);
  const of = retryPolicy?.maximumAttempts ? ` of ${retryPolicy.maximumAttempts}` : '';
  log.info(
    `Model call of iteration ${iteration} tried again (attempt ${attempt}${of})${cause ? `: the attempt before ${cause.startsWith('timed out') ? cause : `failed: ${cause}`}` : ''}`,
    {
      workflowId,
      iteration,
      attempt,
      ...(cause ? { previousFailure: cause } : {}),
    },
  );
}
