import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { FailureType } from './errors';

/**
 * zod's issues as one line for a person: `path: message; …`, an issue at the top level named by
 * `root` (`input`, `arguments`, `plan`…). Type-only zod import: workflow code may import this.
 */
export function describeIssues(issues: z.ZodError['issues'], root: string): string {
  return issues.map((issue) => `${issue.path.join('.') || root}: ${issue.message}`).join('; ');
}

/** Validates a workflow's input; what is wrong fails as a non-retryable `InvalidInput` naming each problem. */
export function parseWorkflowInput<T>(schema: z.ZodType<T>, rawInput: unknown, workflowType: string): T {
  const parsed = schema.safeParse(rawInput);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.create({
    type: FailureType.InvalidInput,
    message: `Invalid ${workflowType} input: ${describeIssues(parsed.error.issues, 'input')}`,
    nonRetryable: true,
  });
}
