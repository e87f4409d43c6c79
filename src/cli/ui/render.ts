import { chainLine } from '../../contract/agent-chain';
import type {
  AgentLoopResult,
  ChatMessage,
  RunProgress,
  ToolCallRecord,
  Usage,
  WaveRecord,
} from '../../contract/agent-loop';
import { answerCommandLine, approveCommandLine, denyCommandLine } from '../../contract/command-lines';
import type { HandoffRecord } from '../../contract/handoff';
import { needsLine, previewLines } from '../../contract/people/approvals';
import { toolSummary } from '../../contract/summaries';
import { colors, statusColor } from './colors';

/**
 * Rendering of runs for the terminal: one line a tool call, then the answer. Statuses, outcomes,
 * hints for a person and errors are coloured when stdout is a terminal (`colors`), else plain.
 */

const RESULT_CHARS = 160;

export function renderCall(iteration: number, call: ToolCallRecord): string {
  const outcome = call.ok
    ? `${colors.green('→')} ${oneLine(call.result ?? '', RESULT_CHARS)}`
    : colors.red(`✗ ${oneLine(call.error ?? '', RESULT_CHARS)}`);
  const child = call.agentRun ? colors.dim(` (run ${call.agentRun.workflowId})`) : '';
  return `${colors.cyan(toolSummary(iteration, call.tool, call.args))} ${outcome}${decided(call)}${settled(call)}${child}`;
}

/**
 * How a call that may have acted was settled, or that a dry run held it back: ` (may have run:
 * reconciled)`, ` (may have run: confirmed by bob)`, ` (held back: dry run)`.
 */
function settled({ outcome, heldBack }: ToolCallRecord): string {
  if (heldBack) return colors.dim(' (held back: dry run)');
  if (!outcome) return '';
  const how = outcome.path === 'reconciled' ? 'reconciled' : `${outcome.path.replace('_', ' ')} by ${outcome.by}`;
  return colors.dim(` (may have run: ${how})`);
}

/** Who decided a call that waited for approval: ` (approved by alice)`, ` (denied by timeout)`. */
function decided({ approval }: ToolCallRecord): string {
  if (!approval) return '';
  const edited = approval.originalArgs ? ', arguments edited' : '';
  return colors.dim(` (${approval.decision} by ${approval.by}${edited})`);
}

/** How a person answers the question a run waits on (`ask_question`), from a terminal. */
export function answerHint(workflowId: string): string {
  return `${colors.yellow('answer with:')} ${colors.bold(answerCommandLine(workflowId))}`;
}

/** How a person decides a call that waits for approval, from a terminal. */
export function approvalHint(workflowId: string, callId: string): string {
  return `${colors.yellow('decide with:')} ${colors.bold(approveCommandLine(workflowId, callId))}   (or: ${denyCommandLine(workflowId, callId)})`;
}

export function renderWave(wave: WaveRecord): string[] {
  return wave.calls.map((call) => renderCall(wave.iteration, call));
}

export function renderResult(result: AgentLoopResult): string {
  const heading =
    result.status === 'completed'
      ? colors.green(
          `Answer (${result.iterations} iteration${result.iterations === 1 ? '' : 's'}, ${tokenCount(result.usage)}):`,
        )
      : `Stopped: ${statusColor(result.status)(result.status)} after ${result.iterations} iterations (${tokenCount(result.usage)}). Last answer:`;
  return [`${heading}\n${result.answer || '(no answer)'}`, ...renderOutput(result), ...renderHeldBack(result)].join(
    '\n',
  );
}

/** A dry run's held-back calls, after its answer: what would have run (nothing for a run that was not dry). */
export function renderHeldBack(result: Pick<AgentLoopResult, 'dryRun' | 'heldBack'>): string[] {
  if (!result.dryRun) return [];
  const held = result.heldBack ?? [];
  return [
    '',
    colors.yellow(`Dry run: ${held.length} call${held.length === 1 ? '' : 's'} held back (nothing but reads ran).`),
    ...held.map((call) => `- ${toolSummary(call.iteration, call.tool, call.args)}`),
  ];
}

/** A run's typed output, as formatted JSON after its answer, or why its answer did not match (nothing without an output schema). */
export function renderOutput(result: Pick<AgentLoopResult, 'output' | 'outputErrors'>): string[] {
  if (result.output !== undefined) return ['', colors.green('Output:'), JSON.stringify(result.output, null, 2)];
  if (!result.outputErrors?.length) return [];
  return ['', colors.red('The answer does not match the output schema:'), ...result.outputErrors.map((e) => `- ${e}`)];
}

export function renderProgress(progress: RunProgress): string[] {
  return [
    `Status:     ${statusColor(progress.status)(progress.status)}`,
    `Agent:      ${progress.agent} (model ${progress.model})`,
    ...(progress.startedBy ? [`Started by: ${progress.startedBy}, ${progress.startedAt}`] : []),
    ...(progress.chain ? [`Called by:  ${chainLine(progress.chain)}`] : []),
    ...(progress.handoffs ? [`Handoffs:   ${handoffsLine(progress.handoffs)}`] : []),
    ...(progress.auditWaiting
      ? [
          `${colors.yellow('Audit:')}      waiting for the audit store since ${progress.auditWaiting.since}: ` +
            `record ${progress.auditWaiting.record} is not written yet (${progress.auditWaiting.error})`,
        ]
      : []),
    `Iteration:  ${progress.iteration} of ${progress.maxIterations} (phase: ${progress.phase})`,
    `Waves:      ${progress.waves.length}, ${progress.waves.reduce((n, w) => n + w.calls.length, 0)} tool calls` +
      (progress.forkedFrom
        ? ` since the fork at iteration ${progress.forkedFrom.iteration} (the waves before it are ${progress.forkedFrom.workflowId}'s)`
        : ''),
    ...(progress.settling?.calls ?? []).map(
      (call) => `Settled:    ${renderCall(progress.settling!.iteration, call)} (its wave still runs)`,
    ),
    tokenLine(progress.usage),
    ...(progress.pendingQuestions ?? []).map((q) => `${colors.yellow('Question:')}   ${q.question} (call ${q.callId})`),
    ...(progress.pendingApprovals ?? []).flatMap((a) => [
      `${colors.yellow('Approval:')}   ${toolSummary(a.iteration, a.tool, a.args)} (call ${a.callId})` +
        (a.reason ? `: ${a.reason}` : '') +
        (a.deadline ? `; ${a.onTimeout === 'approve' ? 'approved' : 'denied'} if undecided by ${a.deadline}` : ''),
      ...(needsLine(a) ? [`            ${needsLine(a)}`] : []),
      ...(a.preview ? previewLines(a.preview).map((line) => `            ${line}`) : []),
    ]),
    ...(progress.pendingOutcomes ?? []).map(
      (o) =>
        `${colors.yellow('Outcome:')}    ${toolSummary(o.iteration, o.tool, o.args)} (call ${o.callId}) may or may not have run (${o.why})`,
    ),
    ...(progress.conversation ? [`Message:    ${progress.conversation.message}`] : []),
  ];
}

export function renderResultSummary(result: AgentLoopResult): string[] {
  return [
    `Status:     ${statusColor(result.status)(result.status)}`,
    ...(result.chain ? [`Called by:  ${chainLine(result.chain)}`] : []),
    `Iterations: ${result.iterations}`,
    `Waves:      ${result.waves.length}, ${result.waves.reduce((n, w) => n + w.calls.length, 0)} tool calls`,
    tokenLine(result.usage),
    ...(result.outputErrors?.length ? [`Output:     does not match (${result.outputErrors.join('; ')})`] : []),
  ];
}

/** `220 tokens`, or `220 tokens, estimated` when the endpoint did not report them all (`Usage.estimated`). */
export function tokenCount(usage: Usage): string {
  return `${usage.totalTokens} tokens${usage.estimated ? ', estimated' : ''}`;
}

function tokenLine(usage: Usage): string {
  return `Tokens:     ${usage.totalTokens} (prompt ${usage.promptTokens}, completion ${usage.completionTokens})${usage.estimated ? ' (estimated)' : ''}`;
}

export function renderTranscript(messages: ChatMessage[]): string[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'assistant': {
        const calls = (message.tool_calls ?? []).map((c) => `${c.function.name}(${c.function.arguments})`).join(', ');
        return `[assistant] ${message.content ?? ''}${calls ? `${message.content ? ' ' : ''}→ ${calls}` : ''}`;
      }
      case 'tool':
        return `[tool ${message.tool_call_id}] ${oneLine(message.content, 400)}`;
      default:
        return `[${message.role}] ${message.content}`;
    }
  });
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A run's handoffs: `triage → billing (iteration 2), billing → crm (iteration 5)`. */
export function handoffsLine(handoffs: readonly HandoffRecord[]): string {
  return handoffs.map((h) => `${h.from} → ${h.to} (iteration ${h.iteration})`).join(', ');
}
