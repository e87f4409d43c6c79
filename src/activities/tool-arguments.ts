import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import type { ToolArgumentsCheck } from '../contract/activity-io';
import { FailureType } from '../contract/errors';
import { describeIssues } from '../contract/issues';
import type { AnyTool } from '../tools/define';
import type { Registry } from './registry';

/** The tool called `name`, or a non-retryable `ToolError` saying this worker does not have it. */
export function registeredTool(registry: Registry, name: string): AnyTool {
  const tool = registry.tools.get(name);
  if (tool) return tool;
  throw ApplicationFailure.create({
    type: FailureType.ToolError,
    message: `Tool "${name}" is not registered on this worker.`,
    nonRetryable: true,
  });
}

/** `args` validated against `tool`'s parameters, or a non-retryable `InvalidToolArguments` naming each problem. */
export function parseToolArguments(tool: AnyTool, args: Record<string, unknown>): z.infer<AnyTool['parameters']> {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.create({
    type: FailureType.InvalidToolArguments,
    message: `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues, 'arguments')}`,
    nonRetryable: true,
  });
}

/**
 * `checkToolArguments`: arguments a person edited while approving a call, checked before the
 * approval is accepted. Returns what is wrong with them, or nothing when the tool would take them.
 */
export function createCheckToolArguments({ registry }: { registry: Registry }) {
  return async function checkToolArguments({ name, args }: ToolArgumentsCheck): Promise<string | undefined> {
    try {
      parseToolArguments(registeredTool(registry, name), args);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  };
}
