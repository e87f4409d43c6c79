import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import { FailureType } from '../../contract/errors';
import type { ShapeOutputInput, ShapeOutputResult } from '../../contract/goal-tree/pursue-goal';
import { addUsage, ZERO_USAGE } from '../../contract/model/usage';
import { outputRepairNote } from '../../contract/output/output';
import { outputSchemaProblem } from '../../contract/output/schema';
import { SETTINGS } from '../../contract/settings/declarations';
import { withHeartbeats } from '../heartbeat';
import { chat } from '../model/chat';
import type { EndpointQuirks } from '../model/endpoint-quirks';
import { toModelFailure } from '../model/errors';
import { checkOutput } from '../output/check-output';
import type { PromptMessage } from './prompts';

/**
 * `shapeGoalOutput`: a goal tree's root report written as JSON of the tree's output schema. The
 * model gets the report and the schema (also as `response_format`); a reply that does not match
 * goes back to it with what is wrong, within this activity, as often as a run's `outputRepairs` default, and
 * then the result says why there is no output (`outputErrors`). A schema ajv cannot compile fails
 * the tree as a non-retryable `InvalidInput` (a raw Temporal client skips the client's check).
 * Done once, at the root, whether its report came from a synthesis, a tool loop or a direct answer.
 */
export function createShapeGoalOutput({ openai, quirks }: { openai: OpenAI; quirks: EndpointQuirks }) {
  return async function shapeGoalOutput(input: ShapeOutputInput): Promise<ShapeOutputResult> {
    const problem = outputSchemaProblem(input.schema);
    if (problem) {
      throw ApplicationFailure.create({
        type: FailureType.InvalidInput,
        message: `Invalid output schema: ${problem}`,
        nonRetryable: true,
      });
    }
    const messages = shapePrompt(input);
    const format = {
      type: 'json_schema',
      json_schema: { name: 'output', schema: input.schema, strict: false },
    } as const;
    let usage = ZERO_USAGE;
    let errors: string[] = [];
    for (let attempt = 0; attempt <= SETTINGS.outputRepairs.default; attempt++) {
      const reply = await withHeartbeats(async () => {
        try {
          return await chat(
            openai,
            { model: input.model, messages, response_format: format },
            {
              signal: Context.current().cancellationSignal,
              timeoutMs: Context.current().info.startToCloseTimeoutMs,
              quirks,
            },
          );
        } catch (err) {
          throw toModelFailure(err, openai.baseURL);
        }
      });
      usage = addUsage(usage, reply.usage);
      const text = reply.message.content ?? '';
      const checked = await checkOutput({ schema: input.schema, text });
      if (checked.ok) return { output: checked.value, usage };
      errors = checked.errors;
      messages.push(
        { role: 'assistant', content: text },
        { role: 'user', content: outputRepairNote(errors, input.schema) },
      );
    }
    return { outputErrors: errors, usage };
  };
}

function shapePrompt({ goal, schema, result: { status, report } }: ShapeOutputInput): PromptMessage[] {
  return [
    {
      role: 'system',
      content:
        'You write the result of a finished task as one JSON value that matches the given JSON Schema, ' +
        'and nothing else. Use only what the result says; never invent values.',
    },
    {
      role: 'user',
      content: [
        `GOAL: ${goal}`,
        '',
        `RESULT (${status}): ${report.summary}`,
        ...(report.key_findings.length ? ['', 'KEY FINDINGS:', ...report.key_findings.map((f) => `- ${f}`)] : []),
        ...(report.raw_evidence?.length ? ['', 'EVIDENCE:', ...report.raw_evidence.map((e) => `- ${e}`)] : []),
        ...(report.limitations.length ? ['', 'LIMITATIONS:', ...report.limitations.map((l) => `- ${l}`)] : []),
        '',
        `JSON SCHEMA OF THE ANSWER: ${JSON.stringify(schema)}`,
      ].join('\n'),
    },
  ];
}
