import type { ApprovalPolicy, ApprovalRequirement, CallPreview } from '../contract/people/approvals';
import type { People } from '../contract/people/people';
import { ApprovalRequirementSchema } from '../contract/people/schemas';
import type { AnyTool, ApprovalContext, ApprovalRule } from '../tools/define';
import type { Registry } from './registry';

/** How long a tool's `preview` may take before the person is shown that it timed out. */
export const PREVIEW_TIMEOUT_SECONDS = 10;

/** The rule that decides whether `tool`'s calls wait in `agent`'s runs: the agent's for the tool, else the tool's own. */
export function approvalRuleOf(registry: Registry, agent: string, tool: string): ApprovalRule | undefined {
  const own = registry.agents.get(agent)?.requiresApproval;
  if (own && Object.hasOwn(own, tool)) return own[tool];
  return registry.tools.get(tool)?.requiresApproval as ApprovalRule | undefined;
}

/** What a rule asked of a call: it waits, for whom; `broken` when the rule failed (it then waits for anyone). */
type Requirement = ApprovalRequirement & { broken?: true };

/**
 * Asks `rule` about one call: `undefined` when it runs at once, else what its approval requires.
 * `true` or a non-empty string means it waits (a string is its reason); an object says who decides.
 * A rule that throws, or answers anything else, makes the call wait for anyone's decision, with what
 * went wrong as the reason, so a broken rule never lets a call run unapproved.
 */
export async function askApprovalRule(
  rule: ApprovalRule | undefined,
  args: Record<string, unknown>,
  context: ApprovalContext,
): Promise<Requirement | undefined> {
  if (typeof rule !== 'function') return rule === true ? {} : rule || undefined;
  let verdict: unknown;
  try {
    verdict = await rule(args, context);
  } catch (err) {
    return broken(`the approval rule of ${context.tool} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (verdict === false) return undefined;
  if (verdict === true) return {};
  if (typeof verdict === 'string') return verdict.trim() ? { reason: verdict.trim() } : {};
  const requirement = ApprovalRequirementSchema.safeParse(verdict);
  if (requirement.success) return requirement.data;
  return broken(
    `the approval rule of ${context.tool} answered ${JSON.stringify(verdict)}, not true, false, a reason or { approvers, quorum, fourEyes, reason }`,
  );
}

function broken(reason: string): Requirement {
  return { reason, broken: true };
}

/** What settling a call's approval needs: the worker's tools, agents and people, and the call. */
export interface PolicyInput {
  registry: Registry;
  people: People;
  args: Record<string, unknown>;
  context: ApprovalContext;
}

/**
 * The policy of a call that begins to wait: its rule's approvers as the names they stand for now,
 * its quorum and four eyes (the rule's, or its agent's `fourEyes`), the tool's description and the
 * preview (`tool.preview`, at most `PREVIEW_TIMEOUT_SECONDS`). Approvers that name no group or
 * person, or a quorum more people than could approve, are the rule's mistake: the call then waits
 * for anyone's decision, with the mistake in its reason.
 */
export async function approvalPolicy(
  requirement: Requirement,
  { registry, people, args, context }: PolicyInput,
): Promise<ApprovalPolicy> {
  const tool = registry.tools.get(context.tool);
  const fourEyes = requirement.fourEyes === true || registry.agents.get(context.agent)?.fourEyes === true;
  const preview = tool?.preview ? await previewOf(tool, args, context) : undefined;
  const base = {
    ...(tool?.description ? { description: tool.description } : {}),
    fourEyes,
    ...(preview ? { preview } : {}),
  };
  const problem = requirement.broken ? undefined : people.problemOf({ ...requirement, fourEyes: false }, 'the rule');
  const approvers = requirement.approvers && !problem ? people.resolve(requirement.approvers) : undefined;
  const quorum = requirement.quorum ?? 1;
  const could = approvers && 'names' in approvers ? approvers.names : people.list().map((person) => person.name);
  const short =
    !problem &&
    quorum > 1 &&
    could.length > 0 &&
    quorum > could.filter((name) => !fourEyes || name !== context.startedBy).length
      ? `the rule: quorum ${quorum} is more than the people who could approve (${could.join(', ') || 'none'}${fourEyes ? `, ${context.startedBy} excepted: four eyes` : ''})`
      : undefined;
  const mistake = problem ?? short;
  if (mistake) {
    const reason = [requirement.reason, `${mistake}, so anyone may decide`].filter(Boolean).join('; ');
    return { ...base, reason, quorum: 1 };
  }
  return {
    ...base,
    ...(requirement.reason ? { reason: requirement.reason } : {}),
    ...(approvers && 'names' in approvers ? { approvers } : {}),
    quorum,
  };
}

/** The tool's preview of the call, or why there is none. */
async function previewOf(tool: AnyTool, args: Record<string, unknown>, context: ApprovalContext): Promise<CallPreview> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the preview took longer than ${PREVIEW_TIMEOUT_SECONDS} seconds`)),
      PREVIEW_TIMEOUT_SECONDS * 1000,
    );
  });
  try {
    const shown = await Promise.race([Promise.resolve().then(() => tool.preview!(args, context)), timeout]);
    if (typeof shown === 'string') return { text: shown };
    if (typeof shown !== 'object' || shown === null) return { error: `the preview returned ${JSON.stringify(shown)}` };
    return {
      ...(typeof shown.text === 'string' ? { text: shown.text } : {}),
      ...(Array.isArray(shown.changes) ? { changes: shown.changes } : {}),
    };
  } catch (err) {
    return { error: `the preview failed: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What is wrong with the approval rules the tools and agents declare as objects, against the people
 * directory: approvers that name no group or person, a quorum below 1 or above who could approve.
 */
export function approvalRuleProblems(registry: Registry, people: People): string[] {
  const problems: string[] = [];
  const check = (rule: ApprovalRule | undefined, where: string) => {
    if (rule && typeof rule === 'object') {
      const problem = people.problemOf(rule, where);
      if (problem) problems.push(problem);
    }
  };
  for (const tool of registry.tools.values()) check(tool.requiresApproval as ApprovalRule, `tool ${tool.name}`);
  for (const agent of registry.agents.values())
    for (const [tool, rule] of Object.entries(agent.requiresApproval ?? {}))
      check(rule, `agent ${agent.name}, rule for ${tool}`);
  return problems;
}
