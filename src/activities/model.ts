import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type { ModelCallInput, ModelCallOutput } from '../common/activity-io';
import type { ChatMessage } from '../common/contract';
import { FailureType } from '../common/errors';
import type { AnyTool } from '../tools/define';
import { WAVE_PLAN_SCHEMA_NAME, WavePlanSchema } from '../common/plan';
import { streamedText, type StreamedText } from '../common/streaming';
import { withHeartbeats } from './heartbeat';
import { chatStreamed, chatWhole } from './model-chat';
import { jsonSchemaOf, toolParametersSchema } from './tool-schema';
import { toModelFailure } from './model-errors';
import { checkReply } from './model-reply';
import type { ToolResultCache } from './tool-result-cache';
import { TranscriptCache } from './transcript-cache';
import type { Registry } from './registry';

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
  /** The results of the tool calls this worker ran, which `delta` refers to (shared with `runTool`). */
  toolResults?: ToolResultCache;
}

/**
 * One model call: Chat Completions with the run's tools, parallel tool calls allowed. The
 * transcript is read from the workflow rather than carried in the input (see `ModelCallInput`),
 * or, when the input says what was added since this worker's previous call of the run, joined
 * from the worker's `TranscriptCache` without a query.
 */
export function createCallModel({ registry, openai, readTranscript, stream = true, toolResults }: ModelDeps) {
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

  const cache = new TranscriptCache();
  /** `delta` with each referenced tool result filled in from `toolResults`, joined to the kept transcript; undefined on any miss. */
  const joinDelta = (workflowId: string, runId: string, delta: NonNullable<ModelCallInput['delta']>, count: number) => {
    const messages: ChatMessage[] = [];
    for (const message of delta.messages) {
      if (!('result' in message)) {
        messages.push(message);
        continue;
      }
      const content = toolResults?.take(workflowId, runId, message.tool_call_id, message.result);
      if (content === undefined) return undefined;
      messages.push({ role: 'tool', tool_call_id: message.tool_call_id, content });
    }
    // A run's first call carries its opening messages whole (`replyId` is empty: no reply yet).
    if (delta.from === 0) return messages.length === count ? messages : undefined;
    return cache.join(workflowId, runId, { ...delta, messages }, count);
  };

  return async function callModel(input: ModelCallInput): Promise<ModelCallOutput> {
    const { workflowId, runId, messageCount, since, delta } = input;
    const transcript =
      input.messages ??
      (since && cache.join(workflowId, runId, since, messageCount)) ??
      (delta && joinDelta(workflowId, runId, delta, messageCount)) ??
      (await readTranscript(workflowId, runId, messageCount));
    const messages = input.systemNote ? withSystemNote(transcript, input.systemNote) : transcript;
    const tools = input.tools.map((name) => {
      const tool = registry.tools.get(name);
      if (!tool) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          message: `Tool "${name}" is not registered on this worker.`,
          nonRetryable: true,
        });
      }
      return toolSchema(tool);
    });

    const request = {
      model: input.model,
      messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
      // The JSON planner describes the tools in the system prompt and asks for a wave plan.
      ...(input.planner === 'json'
        ? { response_format: WAVE_PLAN_FORMAT }
        : tools.length > 0
          ? { tools, parallel_tool_calls: true }
          : {}),
    };
    const context = Context.current();
    // Heartbeats carry the text as it grows, for followers: not a JSON plan's (no text for a
    // person), and not in a local activity (it has no heartbeats; its reply arrives whole).
    const publishes = input.planner === 'native' && !context.info.isLocal;
    let streamed: StreamedText | undefined;
    const publish = (text: string) => {
      if (publishes) context.heartbeat((streamed = streamedText(input.iteration, context.info.attempt, text)));
    };
    const reply = await withHeartbeats(async () => {
      try {
        return stream
          ? await chatStreamed(openai, request, context.cancellationSignal, publish)
          : await chatWhole(openai, request, context.cancellationSignal);
      } catch (err) {
        throw toModelFailure(err);
      }
    }, () => streamed);

    const { message, finishReason, usage } = reply;
    checkReply(message, finishReason, input.planner);
    const replyId = randomUUID();
    // A call given the whole transcript (a local one) never needs what the cache keeps.
    if (!input.messages) cache.remember(workflowId, runId, [...transcript, message], replyId);
    return { message, finishReason: finishReason ?? 'unknown', usage, replyId, at: Date.now() };
  };
}

const WAVE_PLAN_FORMAT = {
  type: 'json_schema',
  json_schema: { name: WAVE_PLAN_SCHEMA_NAME, schema: jsonSchemaOf(WavePlanSchema), strict: false },
} as const;

/** The transcript with `note` appended to its system prompt, for one call (the transcript keeps its own). */
function withSystemNote(messages: ChatMessage[], note: string): ChatMessage[] {
  return messages.map((message, index) =>
    index === 0 && message.role === 'system' ? { ...message, content: `${message.content}\n\n${note}` } : message,
  );
}
