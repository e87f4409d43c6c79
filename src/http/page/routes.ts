import type { Context } from 'hono';
import { html } from 'hono/html';
import { runEffects } from '../../client/effects';
import { pendingOf, type PendingDecision } from '../../client/pending';
import type { RunStatusReport } from '../../client/runs';
import { UndoRefusedError } from '../../client/undo';
import { AGENT_LOOP_WORKFLOW, AgentLoopInputSchema, RUN_STATES } from '../../contract/agent-loop';
import type { OutcomeChoice } from '../../contract/effects/outcome';
import { UNDO_WORKFLOW, undoWorkflowId } from '../../contract/effects/undo';
import { PURSUE_GOAL_WORKFLOW } from '../../contract/goal-tree/defaults';
import { describeIssues } from '../../contract/issues';
import { quorumProgress } from '../../contract/people/approvals';
import type { Api, HttpEnv, RouteDeps } from '../api-env';
import { answerQuestion, decideApproval, endConversation, sendMessage, settleOutcome } from '../decisions';
import { HttpError, toHttpError } from '../errors';
import { asset } from './assets';
import {
  DECIDED_LIMIT,
  decidedFilterOf,
  decidedQuery,
  decidedView,
  RECENT_DECIDED,
  recentDecided,
  type DecidedFilter,
  type DecidedList,
} from './decided-view';
import { decidedCard, decisionCard, decisionId, type Typed } from './decision-view';
import { undoStarted, type EffectsRead } from './effects-view';
import { goalSection } from './goal-view';
import { pendingVersion, waitingCountUpdate, waitingSection } from './inbox-view';
import { layout } from './layout';
import { pageOf, runListView, RUNS_PER_PAGE } from './run-list-view';
import { hasEnded, runBody, runSection } from './run-view';
import { startForm } from './start-view';

/** What the pages need beyond the API's routes: the agents to start, and the link to a run in the Web UI. */
export interface PageDeps extends RouteDeps {
  /** The agents "Start a run" offers; none: a free field. */
  agents: readonly string[];
  /** The page of run `workflowId` in the Temporal Web UI, when its address is known. */
  webUi?: (workflowId: string) => string;
}

/**
 * The web inbox of `waveloop serve` (docs/inbox.md): pages rendered by the server with hono's `html`
 * (every value of a run escaped), made live by htmx: "Waiting now" at `/`, the runs at `/runs`, a
 * run at `/runs/{id}`, a goal tree at `/goals/{id}`, "Start a run" at `/start`, and the decisions of
 * the audit trail at `/decided`. Decisions are
 * taken by the same functions as the API's, recorded as by the holder of the session's token.
 */
export function addPageRoutes(app: Api, deps: PageDeps): void {
  const { client, agents, webUi } = deps;
  const { runs, goals } = client;

  app.get('/assets/:name', (c) => {
    const found = asset(c.req.param('name'));
    if (!found) return c.notFound();
    return c.body(found.text, 200, { 'content-type': `${found.type}; charset=utf-8`, 'cache-control': 'max-age=3600' });
  });

  app.get('/', async (c) => {
    const [list, recent] = await Promise.all([runs.pending(), decided({}, RECENT_DECIDED)]);
    return c.html(layout('Waiting now', html`${waitingSection(list, c.get('person'))}${recentDecided(recent)}`));
  });

  app.get('/decided', async (c) => {
    const filter = decidedFilterOf(c.req.query());
    return c.html(layout('Decided', decidedView(await decided(filter, DECIDED_LIMIT), filter)));
  });

  app.get('/inbox/waiting', async (c) => {
    const list = await runs.pending();
    if (c.req.query('v') === pendingVersion(list)) return c.body(null, 204);
    return c.html(waitingSection(list, c.get('person')));
  });

  app.get('/runs', async (c) => {
    const status = RUN_STATES.find((state) => state === c.req.query('status'));
    const cursor = c.req.query('cursor') || undefined;
    const page = await runs.listPage({ limit: RUNS_PER_PAGE, cursor, ...(status ? { status } : {}) });
    return c.html(layout('Runs', runListView(page, status)));
  });

  app.get('/runs/:id', async (c) => {
    const id = c.req.param('id');
    const report = await runs.status(id);
    if (report.workflowType === PURSUE_GOAL_WORKFLOW) return c.redirect(pageOf(report.workflowType, id), 303);
    // An undo (`undo:<run>`, whose approvals the inbox links to) is shown on its run's page.
    if (report.workflowType === UNDO_WORKFLOW && id.startsWith(UNDO_PREFIX))
      return c.redirect(`/runs/${encodeURIComponent(id.slice(UNDO_PREFIX.length))}`, 303);
    if (report.workflowType !== AGENT_LOOP_WORKFLOW)
      throw new HttpError(
        404,
        'not_found',
        `${id} is a ${report.workflowType} workflow, not a run: it has no page here.`,
      );
    const effects = await effectsOf(id, report);
    return c.html(layout(report.goal ?? id, runSection(report, webUi?.(id), c.get('person'), effects)));
  });

  app.get('/runs/:id/view', async (c) => {
    const id = c.req.param('id');
    const report = await runs.status(id);
    const effects = await effectsOf(id, report);
    // An ended run's section replaces the live one whole: without its stream, the browser stops following.
    if (hasEnded(report)) {
      c.header('HX-Reswap', 'outerHTML');
      return c.html(runSection(report, webUi?.(id), c.get('person'), effects));
    }
    return c.html(runBody(report, webUi?.(id), c.get('person'), effects));
  });

  app.get('/goals/:id', async (c) => {
    const root = await goals.tree(c.req.param('id'));
    return c.html(layout(root.goal, goalSection(root)));
  });

  app.get('/goals/:id/view', async (c) => c.html(goalSection(await goals.tree(c.req.param('id')))));

  app.get('/start', (c) => c.html(layout('Start a run', startForm(agents))));

  app.post('/start', async (c) => {
    const form = await formOf(c);
    const input = AgentLoopInputSchema.safeParse({
      goal: form.goal,
      ...(form.agent ? { agent: form.agent } : {}),
      startedBy: c.get('person').name,
    });
    if (!input.success)
      return c.html(startForm(agents, { ...form, error: describeIssues(input.error.issues, 'run') }), 400);
    try {
      const handle = await runs.start(input.data);
      c.header('HX-Redirect', `/runs/${encodeURIComponent(handle.workflowId)}`);
      return c.body(null, 201);
    } catch (err) {
      return c.html(startForm(agents, { ...form, error: toHttpError(err, deps.log).message }), 400);
    }
  });

  app.post('/runs/:id/approvals/:callId', async (c) => {
    const { id, callId } = c.req.param();
    const form = await formOf(c);
    return decide(c, id, { kind: 'approval', callId }, form, async () => {
      if (form.decision === 'deny') {
        await decideApproval(
          runs,
          id,
          callId,
          { approve: false, ...(form.reason ? { reason: form.reason } : {}) },
          c.get('person').name,
          deps.audit,
        );
        return `Denied by ${c.get('person').name}`;
      }
      const args = form.decision === 'edit' ? argumentsOf(form.args ?? '') : undefined;
      const by = c.get('person').name;
      const decision = { approve: true, ...(args ? { args } : {}) };
      const outcome = await decideApproval(runs, id, callId, decision, by, deps.audit);
      // Its quorum not met yet: the card again, with who approved so far.
      if (outcome.decided === 'waiting') return undefined;
      const quorum = outcome.quorum > 1 ? ` (${quorumProgress(outcome.approvals, outcome.quorum)})` : '';
      return `Approved${args ? ' with edited arguments' : ''} by ${by}${quorum}`;
    });
  });

  // "Undo this run" (effects-view.ts): starts the undo as the signed-in person's, without waiting for it.
  app.post('/runs/:id/undo', async (c) => {
    const id = c.req.param('id');
    const by = c.get('person').name;
    try {
      const report = await client.undo(id, { by, wait: false });
      if (!report.undoId) return c.html(html`<p class="undo-started muted">Nothing left to undo in ${id}.</p>`);
      return c.html(undoStarted(id, report.undoId, by));
    } catch (err) {
      const message = err instanceof UndoRefusedError ? err.message : toHttpError(err, deps.log).message;
      return c.html(html`<p class="undo-started error">The undo did not start: ${message}</p>`, 409);
    }
  });

  app.post('/runs/:id/outcomes/:callId', async (c) => {
    const { id, callId } = c.req.param();
    const form = await formOf(c);
    return decide(c, id, { kind: 'outcome', callId }, form, async () => {
      const choice = OUTCOME_WORDS[form.choice ?? ''];
      if (!choice) throw new HttpError(400, 'bad_request', 'Say whether it happened, to run it again, or to give up.');
      const result = choice[0] === 'happened' && form.result?.trim() ? { result: form.result } : {};
      await settleOutcome(runs, id, callId, { choice: choice[0], ...result }, c.get('person').name, deps.audit);
      return `${choice[1]} by ${c.get('person').name}`;
    });
  });

  app.post('/runs/:id/answers/:callId', async (c) => {
    const { id, callId } = c.req.param();
    const form = await formOf(c);
    return decide(c, id, { kind: 'question', callId }, form, async () => {
      if (!form.answer?.trim()) throw new HttpError(400, 'bad_request', 'Write an answer first.');
      await answerQuestion(runs, id, callId, form.answer);
      return `Answered by ${c.get('person').name}`;
    });
  });

  app.post('/runs/:id/messages', async (c) => {
    const id = c.req.param('id');
    const form = await formOf(c);
    return decide(c, id, { kind: 'message' }, form, async () => {
      if (!form.text?.trim()) throw new HttpError(400, 'bad_request', 'Write a message first.');
      await sendMessage(runs, id, form.text);
      return 'Sent';
    });
  });

  app.post('/runs/:id/end', async (c) => {
    const id = c.req.param('id');
    return decide(c, id, { kind: 'message' }, {}, async () => {
      await endConversation(runs, id);
      return 'Ended the conversation';
    });
  });

  /**
   * What run `id` changed, for its page; why it could not be read, when it could not (the page shows
   * the rest). For a run that has ended, whether an undo of it runs, and the approvals it waits for.
   */
  async function effectsOf(id: string, report: RunStatusReport): Promise<EffectsRead> {
    let read: EffectsRead;
    try {
      read = await runEffects(client, id, report);
    } catch (err) {
      return { effects: [], unread: toHttpError(err, deps.log).message };
    }
    if (!hasEnded(report) || read.effects.length === 0) return read;
    const undoId = undoWorkflowId(id);
    const undo = await runs
      .handle(undoId)
      .describe()
      .catch(() => undefined);
    if (undo?.status.name !== 'RUNNING') return read;
    const progress = await runs.progress(undoId, { quick: true }).catch(() => undefined);
    return { ...read, undo: { undoId, pending: progress ? pendingOf({ workflowId: undoId }, progress) : [] } };
  }

  /** The newest `limit` decisions `filter` finds in the audit trail; or that there is none, or why it could not be read. */
  async function decided(filter: DecidedFilter, limit: number): Promise<DecidedList> {
    if (!deps.audit) return { none: true };
    try {
      return { records: await deps.audit.list(decidedQuery(filter, limit)) };
    } catch (err) {
      return { error: toHttpError(err, deps.log).message };
    }
  }

  /**
   * Takes a decision and answers with what replaces its card: what was decided; the card again
   * when the decision still waits (`take` gave no words: a quorum not yet met); or the card again
   * with why not and what was typed. The card is read anew, so it shows the decision as it waits now.
   */
  async function decide(
    c: Context<HttpEnv>,
    workflowId: string,
    which: Pick<PendingDecision, 'kind' | 'callId'>,
    typed: Typed,
    take: () => Promise<string | undefined>,
  ): Promise<Response> {
    const id = decisionId({ workflowId, ...which });
    const viewer = c.get('person');
    const waiting = async () => {
      const progress = await runs.progress(workflowId, { quick: true }).catch(() => undefined);
      return progress
        ? pendingOf({ workflowId }, progress).find((d) => d.kind === which.kind && d.callId === which.callId)
        : undefined;
    };
    // What replaces the card, and the inbox's count as it stands now the decision is taken.
    const decided = async (words: string) => {
      const list = await runs.pending().catch(() => undefined);
      return c.html(html`${decidedCard(id, words, workflowId)}${list ? waitingCountUpdate(list) : ''}`);
    };
    try {
      const words = await take();
      if (words !== undefined) return decided(words);
      const card = await waiting();
      return card ? c.html(decisionCard(card, { viewer })) : decided(`Approved by ${viewer.name}`);
    } catch (err) {
      const error = toHttpError(err, deps.log);
      const card = await waiting();
      return c.html(
        card
          ? decisionCard(card, { viewer, typed: { ...typed, error: error.message } })
          : decidedCard(id, error.message, workflowId),
        error.status,
      );
    }
  }
}

/** What an undo's workflow id begins with (`undo:<run>`). */
const UNDO_PREFIX = undoWorkflowId('');

/** The buttons of a call of unknown outcome: the choice each sends, and what the card then says. */
const OUTCOME_WORDS: Partial<Record<string, [OutcomeChoice, string]>> = {
  happened: ['happened', 'Settled as happened'],
  again: ['again', 'Run again'],
  give_up: ['give_up', 'Given up'],
};

/** A form's fields (text only). */
async function formOf(c: Context): Promise<Partial<Record<string, string>>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Edited arguments: a JSON object, or a 400 that says what is wrong with the text (nothing is sent). */
function argumentsOf(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, 'bad_request', `The arguments are not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(400, 'bad_request', 'The arguments must be a JSON object, { "name": value, … }.');
  return value as Record<string, unknown>;
}
