import { goalEvents, type GoalTreeNode } from '../../client/goal-tree';
import type { WaveloopClient } from '../../client/waveloop-client';
import type { RunProgress, WaveRecord } from '../../contract/agent-loop';
import { wavesSoFar } from '../../contract/effects/effect-calls';
import { toolSummary } from '../../contract/summaries';
import { colors } from './colors';
import { renderGoalCall, renderGoalEvent } from './goal-render';
import { answerHint, approvalHint } from './render';
import type { TerminalPrompts } from './terminal';

const POLL_MS = 500;
const IDLE_CHECK_MS = 3_000;

/**
 * Follows a goal tree live, as `waveloop goal` prints it: each event of the tree's log as it appears
 * in the histories; each call of a goal's tool loop as it settles (`<loop> · wave N · tool(args) →
 * result`, from the loop's `status` query while it runs, and from its result for the calls a poll
 * did not see, before the goal's `executed` line); and what the tool loops wait for from a person (a
 * question, an approval): asked right here at a terminal (`prompts`), else with the command that
 * gives it. While nothing has been printed, `onIdle` runs every few seconds, to notice a tree that
 * no worker picked up.
 */
export function followTree(
  client: WaveloopClient,
  workflowId: string,
  out: (line: string) => void,
  prompts: TerminalPrompts | undefined,
  onIdle: () => Promise<void>,
) {
  const cache = new Map();
  const seen = new Set<string>();
  let stopped = false;
  let lastIdleCheck = Date.now();
  /** Prints the calls of `waves` (of the tool loop `loop`) not printed yet. */
  const showCalls = (loop: string, waves: readonly WaveRecord[]) => {
    for (const wave of waves) {
      for (const call of wave.calls) {
        const key = `${loop}/wave/${wave.iteration}/${call.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out(renderGoalCall(loop, wave.iteration, call));
      }
    }
  };
  const poll = async () => {
    const tree: GoalTreeNode = await client.goals.tree(workflowId, { cache });
    const open = openExecutions(tree);
    const progresses = await Promise.all(
      open.map((node) => client.runs.progress(node.openExecution!, { quick: true }).catch(() => undefined)),
    );
    for (const [i, node] of open.entries()) {
      const progress = progresses[i];
      if (progress) showCalls(node.openExecution!, wavesSoFar(progress));
    }
    const ended = endedLoops(tree);
    for (const event of goalEvents(tree)) {
      const key = JSON.stringify([event.workflowId, event.goal, event.eventType, event.timestamp]);
      if (seen.has(key)) continue;
      seen.add(key);
      const loop = event.eventType === 'executed' ? (event.data.workflow_id as string | undefined) : undefined;
      if (loop && ended.has(loop)) showCalls(loop, ended.get(loop)!);
      out(renderGoalEvent(event));
    }
    for (const [i, node] of open.entries()) {
      const execution = node.openExecution!;
      for (const wait of waitingFor(execution, progresses[i])) {
        if (seen.has(wait.key)) continue;
        seen.add(wait.key);
        if (prompts) {
          out(wait.what);
          await wait.ask(prompts);
        } else out(`${wait.what}\n  ${wait.hint}`);
      }
    }
  };
  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (stopped) break;
      try {
        if (seen.size <= 1 && Date.now() - lastIdleCheck >= IDLE_CHECK_MS) {
          lastIdleCheck = Date.now();
          await onIdle();
        }
        await poll();
      } catch {
        // A history that is not there yet: the next poll tells.
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await poll().catch(() => undefined);
    },
  };
}

/** The running goals whose tool loops run now. */
function openExecutions(node: GoalTreeNode): GoalTreeNode[] {
  const own = node.execution === 'RUNNING' && node.openExecution ? [node] : [];
  return [...own, ...node.children.flatMap(openExecutions)];
}

/** The waves of every tool loop of the tree that completed, by the loop's workflow id. */
function endedLoops(tree: GoalTreeNode): Map<string, WaveRecord[]> {
  const loops = new Map<string, WaveRecord[]>();
  const walk = (node: GoalTreeNode) => {
    if (node.toolLoop) loops.set(node.toolLoop.workflowId, node.toolLoop.waves);
    node.children.forEach(walk);
  };
  walk(tree);
  return loops;
}

/** What a goal's tool loop waits for from a person: what it is, the command that gives it, and how to ask for it here. */
function waitingFor(
  execution: string,
  progress: RunProgress | undefined,
): { key: string; what: string; hint: string; ask(prompts: TerminalPrompts): Promise<void> }[] {
  if (!progress) return [];
  return [
    ...(progress.pendingQuestions ?? []).map((q) => ({
      key: `${execution}/${q.callId}`,
      what: `${execution} · ${colors.yellow('question:')} ${q.question}`,
      hint: answerHint(execution),
      ask: (prompts: TerminalPrompts) => prompts.question(execution, q),
    })),
    ...(progress.pendingApprovals ?? []).map((a) => ({
      key: `${execution}/${a.callId}`,
      what: `${execution} · ${colors.yellow('approval needed:')} ${toolSummary(a.iteration, a.tool, a.args)}`,
      hint: approvalHint(execution, a.callId),
      ask: (prompts: TerminalPrompts) => prompts.approval(execution, a),
    })),
  ];
}
