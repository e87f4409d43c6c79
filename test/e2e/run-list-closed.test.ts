import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListedRun } from '../../src/client/run-list';
import type { RunState } from '../../src/contract/agent-loop';
import { WAVELOOP_STATUS } from '../../src/contract/search-attributes';
import { createHttpApp } from '../../src/http';
import { cliFixture, type CliFixture } from '../support/cli';
import { waitForProgress } from '../support/harness';
import { peopleWith } from '../support/people';
import { eventually } from '../support/wait';

/**
 * How `runs.list`, `/api/runs` and the `/runs` page show a run that Temporal closed before it ended
 * on its own (its `WaveloopStatus` still says `running` or waiting): by how it closed, and a filter
 * by status finds it there and nowhere else. On the tests' Temporal server, with the fake model.
 */

let cli: CliFixture;
beforeAll(async () => {
  cli = await cliFixture('run-list-closed');
});
afterAll(() => cli?.stop());

const TOKEN = 'alice-list-token';
const app = () =>
  createHttpApp({ client: cli.client, people: peopleWith([{ name: 'alice', token: TOKEN }]), log: () => {} });

/** This run as `runs.list` lists it (filtered by `status` when given), once the visibility store has it `closed`. */
async function listedOnceClosed(id: string): Promise<ListedRun> {
  const runs = await eventually(
    () => cli.client.runs.list({ limit: 1000 }),
    (listed) => listed.some((run) => run.workflowId === id && run.execution !== 'RUNNING'),
    { problem: `${id} never closed in the list.` },
  );
  return runs.find((run) => run.workflowId === id)!;
}

/** The ids of this file's runs in `status`, as `runs.list` filters them (`--status` of `waveloop list`). */
async function idsIn(status: RunState | RunState[], ids: string[]): Promise<string[]> {
  const runs = await cli.client.runs.list({ status, limit: 1000 });
  return runs.map((run) => run.workflowId).filter((id) => ids.includes(id));
}

/** The run's own status, as the visibility store holds it. */
async function ownStatus(id: string): Promise<string | undefined> {
  const description = await cli.client.runs.handle(id).describe();
  return description.typedSearchAttributes.get(WAVELOOP_STATUS);
}

describe('the list of runs, for a run Temporal closed', () => {
  it('a run that failed (its own status still running) is listed failed, and `failed` finds it: runs.list, /api/runs, /runs', async () => {
    const id = `list-failed-${randomUUID()}`;
    cli.fake.script({ status: 401, message: 'Incorrect API key provided' });
    await cli.client.runs.start({ goal: 'Fail at once' }, { workflowId: id });
    await expect(cli.client.runs.result(id)).rejects.toThrow();
    expect(await ownStatus(id)).toBe('running');

    expect(await listedOnceClosed(id)).toMatchObject({ workflowId: id, execution: 'FAILED', status: 'failed' });
    expect(await idsIn('failed', [id])).toEqual([id]);
    expect(await idsIn(['completed', 'failed'], [id])).toEqual([id]);
    expect(await idsIn('running', [id])).toEqual([]);

    const headers = { authorization: `Bearer ${TOKEN}` };
    const api = await app().request('/api/runs?status=failed&limit=1000', { headers });
    expect(api.status).toBe(200);
    const { runs } = (await api.json()) as { runs: ListedRun[] };
    expect(runs.find((run) => run.workflowId === id)).toMatchObject({ execution: 'FAILED', status: 'failed' });
    const running = (await (await app().request('/api/runs?status=running&limit=1000', { headers })).json()) as {
      runs: ListedRun[];
    };
    expect(running.runs.map((run) => run.workflowId)).not.toContain(id);

    const page = await app().request('/runs?status=failed', { headers: { cookie: `waveloop_token=${TOKEN}` } });
    expect(page.status).toBe(200);
    const row = (await page.text()).split('<tr').find((tr) => tr.includes(id));
    expect(row).toMatch(/<span class="status failed">failed<\/span>/);
  });

  it('a run terminated while it waited for approval is listed terminated, not waiting, and leaves the waiting list', async () => {
    const id = `list-terminated-${randomUUID()}`;
    cli.fake.script({ toolCalls: [{ name: 'update_user', args: { id: 2, company: 'EPAM' } }] });
    await cli.client.runs.start({ goal: 'Move Bob to EPAM' }, { workflowId: id });
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => p.status === 'waiting_for_approval');
    await eventually(
      () => idsIn('waiting_for_approval', [id]),
      (ids) => ids.length === 1,
    );
    await cli.client.runs.handle(id).terminate('stopped by the test');
    expect(await ownStatus(id)).toBe('waiting_for_approval');

    expect(await listedOnceClosed(id)).toMatchObject({ execution: 'TERMINATED', status: 'terminated' });
    expect(await idsIn('waiting_for_approval', [id])).toEqual([]);
    expect(await idsIn(['failed', 'cancelled'], [id])).toEqual([]);
    expect((await cli.client.runs.pending()).decisions.map((d) => d.workflowId)).not.toContain(id);
  });
});
