import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { AGENT_LOOP_WORKFLOW } from '../../src/contract/agent-loop';
import { approveUpdate, statusQuery } from '../../src/contract/messages';
import type { DemoDatabase } from '../../src/demo';
import { approvalCallId, chaosGoal } from './script';

/** A chaos run, as the crash matrices track it. */
export interface ChaosRunState {
  n: number;
  workflowId: string;
  /** update_user needs a person's approval; the watcher gives it. */
  approved: boolean;
}

/**
 * The crash matrices' calls to a server that may be down or restarting: each with a deadline, so
 * none outlives a restart; starting a run (an earlier attempt that got through counts as started)
 * and approving its update_user call once it waits for approval.
 */
export function chaosCalls(client: Client, taskQueue: string) {
  const within = <T>(ms: number, call: () => Promise<T>): Promise<T> => client.withDeadline(Date.now() + ms, call);
  return {
    within,
    async start(run: ChaosRunState): Promise<void> {
      try {
        await client.workflow.start(AGENT_LOOP_WORKFLOW, {
          taskQueue,
          workflowId: run.workflowId,
          args: [{ goal: chaosGoal(run.n), tools: ['get_user', 'update_user', 'chaos_step'], maxIterations: 6 }],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // an earlier attempt got through
      }
    },
    /** Approves run `n`'s update_user call once it waits for approval (a refused update changes nothing). */
    async approve(run: ChaosRunState): Promise<void> {
      const handle = client.workflow.getHandle(run.workflowId);
      const progress = await within(3_000, () => handle.query(statusQuery)).catch(() => undefined);
      if (!progress?.pendingApprovals?.some((p) => p.callId === approvalCallId(run.n))) return;
      await within(3_000, () => handle.executeUpdate(approveUpdate, { args: [approvalCallId(run.n)] })).then(
        () => (run.approved = true),
        () => undefined,
      );
    },
  };
}

/** Retries `work` every half second while the server restarts, `attempts` times at most. */
export async function retryWhileRestarting(work: () => Promise<void>, attempts: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Counts every UPDATE of a user row in `chaos_updates`, independently of the tool's own bookkeeping in tool_effects. */
export function countUserUpdates(db: DemoDatabase): void {
  db.exec(`CREATE TABLE chaos_updates (user_id INTEGER, company TEXT);
    CREATE TRIGGER chaos_count AFTER UPDATE ON users BEGIN INSERT INTO chaos_updates VALUES (NEW.id, NEW.company); END;`);
}

/** How many times run `n`'s update_user took effect (`countUserUpdates`). */
export function userUpdates(db: DemoDatabase, n: number): number {
  return (db.prepare('SELECT count(*) AS n FROM chaos_updates WHERE company = ?').get(`Chaos-${n}`) as { n: number }).n;
}
