import type OpenAI from 'openai';
import type { ModelCallInput } from '../../contract/activity-io';
import type { ChatMessage } from '../../contract/agent-loop';
import { WAVE_PLAN_SCHEMA_NAME, WavePlanSchema } from '../../contract/plan';
import type { ChatParams } from './refused-parameters';
import { jsonSchemaOf } from './tool-schema';

const WAVE_PLAN_FORMAT = {
  type: 'json_schema',
  json_schema: { name: WAVE_PLAN_SCHEMA_NAME, schema: jsonSchemaOf(WavePlanSchema), strict: false },
} as const;

/**
 * The Chat Completions request of a run's model call: the messages, the output limit
 * (`max_tokens`), and either the tools with parallel tool calls allowed (the native planner) or a
 * `wave_plan` JSON Schema as `response_format` (the JSON planner, whose system prompt describes the
 * tools). What an endpoint refuses of it is left out or replaced when it is sent (`EndpointQuirks`).
 */
export function modelCallRequest(
  input: Pick<ModelCallInput, 'model' | 'planner' | 'maxOutputTokens'>,
  messages: ChatMessage[],
  tools: OpenAI.Chat.Completions.ChatCompletionTool[],
): ChatParams {
  return {
    model: input.model,
    messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
    ...(input.maxOutputTokens ? { max_tokens: input.maxOutputTokens } : {}),
    ...(input.planner === 'json'
      ? { response_format: WAVE_PLAN_FORMAT }
      : tools.length > 0
        ? { tools, parallel_tool_calls: true }
        : {}),
  };
}
