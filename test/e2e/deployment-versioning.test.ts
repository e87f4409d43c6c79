import { randomUUID } from 'node:crypto';
import {
  WorkflowNotFoundError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_LOOP_WORKFLOW, type AgentLoopInput, type AgentLoopResult } from '../../src/contract/agent-loop';
import { PURSUE_GOAL_WORKFLOW } from '../../src/contract/goal-tree/defaults';
import type { GoalInput, GoalResult } from '../../src/contract/goal-tree/pursue-goal';
import { answerUpdate, approveUpdate, statusQuery } from '../../src/contract/messages';
import { queryWithRetry } from '../../src/temporal/query';
import { defineTool } from '../../src/tools/define';
import type { ChatRequest, ScriptedReply } from '../support/fake-model';
import { achievement, assess, decomposition, goalModel, synthesis } from '../support/goal-model';
import { Harness, waitForProgress } from '../support/harness';
import { eventually } from '../support/wait';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const { VersioningBehavior, VersionDrainageStatus } = temporal.api.enums.v1;

const TREE = 'Stamp twice, the second after the first';
const FIRST = 'Stamp with approval';
const SECOND = 'Stamp again';

/**
 * The tools whose code tells the builds apart: build A's say "ran on build A", build B's "ran on
 * build B". `gated_stamp` waits for approval.
 */
const stampTools = (build: string) =>
  [false, true].map((requiresApproval) =>
    defineTool({
      name: requiresApproval ? 'gated_stamp' : 'build_stamp',
      description: 'Says which build of the workers ran this call.',
      parameters: z.object({}),
      requiresApproval,
      execute: () => `ran on build ${build}`,
    }),
  );

/**
 * A Worker Deployment of its own on a task queue of its own, and the versions (builds) of it the
 * test runs: each build a worker of the same workflows and tools, but its own stamp tools.
 */
class Deployment {
  readonly name = `dep-${randomUUID()}`;
  readonly taskQueue = `test-${randomUUID()}`;
  private readonly workers = new Map<string, { worker: Worker; running: Promise<void> }>();

  /** Starts build `buildId`'s worker; polling registers the version. */
  async start(buildId: string): Promise<void> {
    const { worker } = await h.worker({
      taskQueue: this.taskQueue,
      extraTools: stampTools(buildId),
      deployment: { name: this.name, buildId },
    });
    this.workers.set(buildId, { worker, running: worker.run() });
  }

  /** Shuts build `buildId`'s worker down and waits until it has stopped. */
  async stop(buildId: string): Promise<void> {
    const { worker, running } = this.workers.get(buildId)!;
    this.workers.delete(buildId);
    worker.shutdown();
    await running;
  }

  async stopAll(): Promise<void> {
    for (const buildId of [...this.workers.keys()]) await this.stop(buildId);
  }

  /** Makes `buildId` the current version, as `temporal worker deployment set-current-version` does, once its worker has registered it. */
  async setCurrent(buildId: string): Promise<void> {
    const set = () =>
      h.client.workflowService
        .setWorkerDeploymentCurrentVersion({ namespace: 'default', deploymentName: this.name, buildId })
        .then(
          () => 'set',
          (err: Error) => err.message,
        );
    await eventually(set, (outcome) => outcome === 'set', { problem: `Version ${buildId} never became current.` });
  }

  /** The version's drainage status, as `temporal worker deployment describe-version` shows it. */
  async drainage(buildId: string): Promise<temporal.api.enums.v1.VersionDrainageStatus | null | undefined> {
    const { workerDeploymentVersionInfo } = await h.client.workflowService.describeWorkerDeploymentVersion({
      namespace: 'default',
      deploymentVersion: { deploymentName: this.name, buildId },
    });
    return workerDeploymentVersionInfo?.drainageInfo?.status;
  }

  /** Starts a goal tree on the deployment's task queue: on its current version. */
  startTree(input: GoalInput): Promise<WorkflowHandle> {
    return h.client.workflow.start(PURSUE_GOAL_WORKFLOW, {
      taskQueue: this.taskQueue,
      workflowId: `goal-${randomUUID()}`,
      args: [input],
      workflowExecutionTimeout: '2 minutes',
    });
  }

  /** Starts an agent run on the deployment's task queue: on its current version. */
  startRun(input: AgentLoopInput): Promise<WorkflowHandleWithFirstExecutionRunId> {
    return h.client.workflow.start(AGENT_LOOP_WORKFLOW, {
      taskQueue: this.taskQueue,
      workflowId: `test-${randomUUID()}`,
      args: [input],
      workflowExecutionTimeout: '2 minutes',
    });
  }
}

/** The call id of the approval the agent run `workflowId` waits for, once it has started and waits for one. */
async function waitingApproval(workflowId: string): Promise<string> {
  const handle = h.client.workflow.getHandle(workflowId);
  const notYet = (err: unknown) => {
    if (err instanceof WorkflowNotFoundError) return [];
    throw err;
  };
  const pending = () => queryWithRetry(h.client, handle, statusQuery).then((p) => p.pendingApprovals, notYet);
  const [approval] = await eventually(pending, (approvals) => approvals.length > 0, {
    attempts: 300,
    problem: `${workflowId} never waited for an approval.`,
  });
  return approval.callId;
}

/** The version a run is on, and how, as the server describes it. */
async function versionOf(
  handle: WorkflowHandle,
): Promise<{ buildId?: string | null; behavior?: temporal.api.enums.v1.VersioningBehavior | null }> {
  const { raw } = await handle.describe();
  const info = raw.workflowExecutionInfo?.versioningInfo;
  return { buildId: info?.deploymentVersion?.buildId, behavior: info?.behavior };
}

/** What the model says: call `build_stamp`, then, once a result is in, answer with it. */
const stampThenAnswer = (req: ChatRequest): ScriptedReply => {
  const last = req.messages.at(-1)!;
  return last.role === 'tool'
    ? { content: `Done: ${last.content}.` }
    : { toolCalls: [{ name: 'build_stamp', args: {} }] };
};

describe('Worker Deployments: runs stay on the version that started them', () => {
  it('a run waiting for approval on build A finishes on A after B becomes current; new runs go to B; A drains and its worker stops', async () => {
    const deployment = new Deployment();
    try {
      await deployment.start('A');
      await deployment.setCurrent('A');
      // Three runs (waiting, fresh, after), each a stamp and an answer.
      h.fake.route(stampThenAnswer, { atMost: 6 });

      const waiting = await deployment.startRun({
        goal: 'Stamp, once approved',
        tools: ['build_stamp'],
        toolsToApprove: ['build_stamp'],
      });
      const approval = await waitForProgress(h.client, waiting, (p) => p.pendingApprovals.length > 0);
      expect(await versionOf(waiting)).toEqual({
        buildId: 'A',
        behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
      });

      // The deploy: build B starts and becomes current; A drains while its run waits.
      await deployment.start('B');
      await deployment.setCurrent('B');
      expect(await deployment.drainage('A')).toBe(VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINING);

      const fresh = await deployment.startRun({ goal: 'Stamp now', tools: ['build_stamp'] });
      expect(((await fresh.result()) as AgentLoopResult).waves[0].calls[0].result).toBe('ran on build B');
      expect(await versionOf(fresh)).toEqual({ buildId: 'B', behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED });

      // The approval arrives: the run carries on with build A's code, its tool call included.
      await waiting.executeUpdate(approveUpdate, { args: [approval.pendingApprovals[0].callId] });
      const result = (await waiting.result()) as AgentLoopResult;
      expect(result).toMatchObject({ status: 'completed', answer: 'Done: ran on build A.' });
      expect(result.waves[0].calls[0]).toMatchObject({ tool: 'build_stamp', ok: true, result: 'ran on build A' });
      expect(await versionOf(waiting)).toMatchObject({ buildId: 'A' });

      // With its last run ended, A drains, and its worker can stop; new runs still complete on B.
      await eventually(
        () => deployment.drainage('A'),
        (status) => status === VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED,
        {
          problem: 'Version A never drained.',
        },
      );
      await deployment.stop('A');
      const after = await deployment.startRun({ goal: 'Stamp after A stopped', tools: ['build_stamp'] });
      expect(((await after.result()) as AgentLoopResult).answer).toBe('Done: ran on build B.');
    } finally {
      await deployment.stopAll();
    }
  });

  it('a hand-over (continue-as-new) moves a run from build A to the current version B', async () => {
    const deployment = new Deployment();
    try {
      await deployment.start('A');
      await deployment.setCurrent('A');
      // Ask first (the run waits on A), then stamp until a stamp comes from B.
      h.fake.route(
        (req) => {
          if (String(req.messages[0].content).startsWith('You compress')) return { content: 'Earlier: some stamps.' };
          const last = req.messages.at(-1)!;
          if (last.role === 'user')
            return { toolCalls: [{ name: 'ask_question', args: { question: 'Shall I start?' } }] };
          return String(last.content).includes('build B')
            ? { content: 'Moved to B.' }
            : { toolCalls: [{ name: 'build_stamp', args: {} }] };
          // At most 30 iterations and a final answer, and a summary at each hand-over (at most one an iteration).
        },
        { atMost: 61 },
      );

      // The same stamp again and again is the point here, not a model stuck repeating itself.
      const handle = await deployment.startRun({
        goal: 'Stamp until you are moved',
        tools: ['build_stamp', 'ask_question'],
        maxHistoryEvents: 50,
        maxIterations: 30,
        circuitBreaker: 0,
      });
      await waitForProgress(h.client, handle, (p) => p.status === 'waiting_for_input');
      await deployment.start('B');
      await deployment.setCurrent('B');
      await handle.executeUpdate(answerUpdate, { args: ['yes'] });

      const result = (await handle.result()) as AgentLoopResult;
      expect(result).toMatchObject({ status: 'completed', answer: 'Moved to B.' });
      const stamps = result.waves.slice(1).map((w) => w.calls[0].result);
      // Build A stamped until the hand-over; the run after it, on B, stamped once.
      expect(stamps.at(-1)).toBe('ran on build B');
      expect(stamps.slice(0, -1).length).toBeGreaterThan(0);
      expect(new Set(stamps.slice(0, -1))).toEqual(new Set(['ran on build A']));
      const first = h.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      expect(await versionOf(first)).toMatchObject({ buildId: 'A' });
      expect(await versionOf(h.client.workflow.getHandle(handle.workflowId))).toEqual({
        buildId: 'B',
        behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
      });
    } finally {
      await deployment.stopAll();
    }
  });

  it('a goal tree stays whole on its version: a sub-goal that starts after B became current still runs on A', async () => {
    const deployment = new Deployment();
    try {
      await deployment.start('A');
      await deployment.setCurrent('A');
      const echo = (req: ChatRequest): ScriptedReply => ({ content: String(req.messages.at(-1)!.content) });
      const router = goalModel({
        [TREE]: {
          assessment: [assess.decompose()],
          decomposition: [decomposition(FIRST, [SECOND, [0]])],
          achievement: [achievement(false, ['the second stamp']), achievement(true)],
          synthesis: [synthesis('Both stamped.')],
        },
        [FIRST]: { assessment: [assess.tools()], agent: [{ toolCalls: [{ name: 'gated_stamp', args: {} }] }, echo] },
        [SECOND]: { assessment: [assess.tools()], agent: [{ toolCalls: [{ name: 'build_stamp', args: {} }] }, echo] },
      });
      h.fake.script(...router.steps);

      const tree = await deployment.startTree({ goal: TREE, tools: ['build_stamp', 'gated_stamp'] });
      const first = `${tree.workflowId}/1/exec`;
      const callId = await waitingApproval(first);
      await deployment.start('B');
      await deployment.setCurrent('B');
      await h.client.workflow.getHandle(first).executeUpdate(approveUpdate, { args: [callId] });

      const result = (await tree.result()) as GoalResult;
      router.assertDone();
      expect(result.children.map((c) => [c.goal, c.report.summary])).toEqual([
        [FIRST, 'ran on build A'],
        [SECOND, 'ran on build A'],
      ]);
      for (const id of [tree.workflowId, `${tree.workflowId}/2`, `${tree.workflowId}/2/exec`]) {
        expect(await versionOf(h.client.workflow.getHandle(id)), id).toEqual({
          buildId: 'A',
          behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
        });
      }
    } finally {
      await deployment.stopAll();
    }
  });
});
