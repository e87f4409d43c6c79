import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type { ModelCallInput, ModelCallOutput } from '../common/activity-io';
import type { AssistantMessage, ChatMessage } from '../common/contract';
import { FailureType } from '../common/errors';
import type { AnyTool } from '../tools/define';
import { WAVE_PLAN_SCHEMA_NAME, WavePlanSchema } from '../common/plan';
import { withHeartbeats } from './heartbeat';
import { jsonSchemaOf, toolParametersSchema } from './tool-schema';
import { toModelFailure } from './model-errors';
import { checkReply } from './model-reply';
import { TranscriptCache } from './transcript-cache';
import type { Registry } from './registry';

export interface ModelDeps {
  registry: Registry;
  /** The OpenAI-compatible client; built once by the worker. */
  openai: OpenAI;
  /** Reads the first `count` messages of a run's transcript (through the workflow's query). */
  readTranscript(workflowId: string, runId: string, count: number): Promise<ChatMessage[]>;
}

/**
 * One model call: Chat Completions with the run's tools, parallel tool calls allowed. The
 * transcript is read from the workflow rather than carried in the input (see `ModelCallInput`),
 * or, when the input says what was added since this worker's previous call of the run, joined
 * from the worker's `TranscriptCache` without a query.
 */
export function createCallModel({ registry, openai, readTranscript }: ModelDeps) {
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

  return async function callModel(input: ModelCallInput): Promise<ModelCallOutput> {
    const { workflowId, runId, messageCount, since } = input;
    const transcript =
      (since && cache.join(workflowId, runId, since.from, since.messages, messageCount)) ??
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

    const completion = await withHeartbeats(async () => {
      try {
        return await openai.chat.completions.create(
          {
            model: input.model,
            messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
            // The JSON planner describes the tools in the system prompt and asks for a wave plan.
            ...(input.planner === 'json'
              ? { response_format: WAVE_PLAN_FORMAT }
              : tools.length > 0
                ? { tools, parallel_tool_calls: true }
                : {}),
          },
          { signal: Context.current().cancellationSignal },
        );
      } catch (err) {
        throw toModelFailure(err);
      }
    });

    const choice = completion.choices?.[0];
    if (!choice) {
      throw ApplicationFailure.create({
        type: FailureType.ModelServerError,
        message: 'The model endpoint answered without any choice.',
      });
    }
    const message = toAssistantMessage(choice.message);
    checkReply(message, choice.finish_reason, input.planner);
    cache.remember(workflowId, runId, [...transcript, message]);
    return {
      message,
      finishReason: choice.finish_reason ?? 'unknown',
      usage: {
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
        totalTokens: completion.usage?.total_tokens ?? 0,
      },
    };
  };
}

function toAssistantMessage(message: OpenAI.Chat.Completions.ChatCompletionMessage): AssistantMessage {
  const calls = (message.tool_calls ?? []).flatMap((call) =>
    call.type === 'function'
      ? [{ id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: call.function.arguments ?? '' } }]
      : [],
  );
  return { role: 'assistant', content: message.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
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
