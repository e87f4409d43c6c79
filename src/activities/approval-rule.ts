import type { ApprovalRule } from '../tools/define';
import type { Registry } from './registry';

/** What an approval rule said of a call: it runs (`undefined`), or it waits, with the rule's reason if it gave one. */
export type ApprovalVerdict = undefined | { reason?: string };

/** The rule that decides whether `tool`'s calls wait in `agent`'s runs: the agent's for the tool, else the tool's own. */
export function approvalRuleOf(registry: Registry, agent: string, tool: string): ApprovalRule | undefined {
  const own = registry.agents.get(agent)?.requiresApproval;
  if (own && Object.hasOwn(own, tool)) return own[tool];
  return registry.tools.get(tool)?.requiresApproval as ApprovalRule | undefined;
}

/**
 * Asks `rule` about one call. `true` or a non-empty string means the call waits (a string is its
 * reason); a rule that throws, or answers anything but a boolean or a string, makes the call wait
 * with what went wrong as the reason, so a broken rule never lets a call run unapproved.
 */
export async function askApprovalRule(
  rule: ApprovalRule | undefined,
  args: Record<string, unknown>,
  context: { workflowId: string; agent: string; tool: string },
): Promise<ApprovalVerdict> {
  if (typeof rule !== 'function') return rule ? {} : undefined;
  let verdict: unknown;
  try {
    verdict = await rule(args, context);
  } catch (err) {
    return {
      reason: `the approval rule of ${context.tool} failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  if (verdict === false) return undefined;
  if (verdict === true) return {};
  if (typeof verdict === 'string') return verdict.trim() ? { reason: verdict.trim() } : {};
  return {
    reason: `the approval rule of ${context.tool} answered ${JSON.stringify(verdict)}, not true, false or a reason`,
  };
}
