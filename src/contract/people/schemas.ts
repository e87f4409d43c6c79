import { z } from 'zod';
import type { ApprovalRequirement } from './approvals';

/** An approval rule's requirement object (`{ approvers, quorum, fourEyes, reason }`), as a tool or an agent declares it. */
export const ApprovalRequirementSchema = z.strictObject({
  reason: z.string().optional(),
  approvers: z.array(z.string().trim().min(1)).min(1, 'approvers names at least one group or person').optional(),
  quorum: z.number().int('quorum must be a whole number').min(1, 'quorum must be at least 1').optional(),
  fourEyes: z.boolean().optional(),
}) satisfies z.ZodType<ApprovalRequirement>;

/**
 * A `requiresApproval` rule: `true`, `false`, a requirement object, or a function. `F` is the
 * function's type, which the contract does not know.
 */
export function approvalRuleSchema<F>() {
  return z.union([z.boolean(), ApprovalRequirementSchema, z.custom<F>((value) => typeof value === 'function')], {
    error:
      'requiresApproval must be true, false, { approvers?, quorum?, fourEyes?, reason? } or a function (args, context) => boolean | string | { … }',
  });
}
