import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findUser } from '../../../src/demo/demo-db';
import { getUserTool } from '../../../src/demo/tools/get-user';
import { searchUsersTool } from '../../../src/demo/tools/search-users';
import { updateUserTool } from '../../../src/demo/tools/update-user';
import { callTool, makeDemoDeps, makeToolContext, type TempDemoDeps } from '../../support/tool-context';

let deps: TempDemoDeps;
beforeEach(() => {
  deps = makeDemoDeps();
});
afterEach(() => deps.cleanup());

const search = (name: string) => callTool(searchUsersTool(deps), { name });
const effectCount = () => deps.db.prepare('SELECT count(*) AS n FROM tool_effects').get();

describe('search_users', () => {
  it('search_users: exactly one Bob, who is not at EPAM', async () => {
    const bobs = await search('bob');
    expect(bobs).toHaveLength(1);
    expect(bobs[0]).toMatchObject({ name: 'Bob Martin', company: 'Initech' });
    expect(bobs[0].email).toMatch(/@/);
  });

  it('search_users: several Alices, matched case-insensitively, ordered by id', async () => {
    const alices = await search('ALICE');
    expect(alices.length).toBeGreaterThanOrEqual(5);
    for (const user of alices) expect(user.name).toMatch(/^Alice /);
    const ids = alices.map((u) => u.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('search_users: matches part of a last name', async () => {
    expect((await search('mart')).map((u) => u.name)).toEqual(['Bob Martin']);
  });

  it('search_users: returns an empty array when nobody matches', async () => {
    expect(await search('Zaphod')).toEqual([]);
  });

  it('search_users: rejects an empty name', async () => {
    await expect(search('  ')).rejects.toThrow();
  });
});

describe('get_user', () => {
  it('get_user: returns the user with that id', async () => {
    const [bob] = await search('bob');
    expect(await callTool(getUserTool(deps), { id: bob.id })).toEqual(bob);
  });

  it('get_user: an unknown id throws "No user with id N"', async () => {
    await expect(callTool(getUserTool(deps), { id: 9999 })).rejects.toThrow('No user with id 9999');
  });

  it('get_user: rejects ids that are not positive integers', () => {
    const { parameters } = getUserTool(deps);
    for (const id of [0, -1, 1.5, '2']) expect(parameters.safeParse({ id }).success).toBe(false);
  });
});

describe('update_user', () => {
  const bobId = async () => (await search('bob'))[0].id;
  const update = (args: object, idempotencyKey = 'wf-test/call-1') =>
    callTool(updateUserTool(deps), args, makeToolContext({ idempotencyKey }));
  const changeBehindTheToolsBack = (id: number) =>
    deps.db.prepare('UPDATE users SET company = ? WHERE id = ?').run('Changed Meanwhile', id);

  it('update_user: changes only the given fields and returns the updated user', async () => {
    const id = await bobId();
    const before = findUser(deps.db, id)!;
    const updated = await update({ id, company: 'EPAM' });
    expect(updated).toEqual({ ...before, company: 'EPAM' });
    expect(findUser(deps.db, id)).toEqual(updated);
  });

  it('update_user: a retry with the same idempotency key changes nothing more and returns the same result', async () => {
    const id = await bobId();
    const first = await update({ id, company: 'EPAM' });
    changeBehindTheToolsBack(id);

    expect(await update({ id, company: 'EPAM' })).toEqual(first);
    expect(findUser(deps.db, id)?.company).toBe('Changed Meanwhile');
    expect(effectCount()).toEqual({ n: 1 });
  });

  it('update_user: a different idempotency key applies again', async () => {
    const id = await bobId();
    await update({ id, company: 'EPAM' });
    changeBehindTheToolsBack(id);

    expect((await update({ id, company: 'EPAM' }, 'wf-test/call-2')).company).toBe('EPAM');
    expect(findUser(deps.db, id)?.company).toBe('EPAM');
    expect(effectCount()).toEqual({ n: 2 });
  });

  it('update_user: an unknown id throws and stores no effect', async () => {
    await expect(update({ id: 9999, company: 'EPAM' })).rejects.toThrow('No user with id 9999');
    expect(effectCount()).toEqual({ n: 0 });
  });

  it('update_user: requires at least one field and a valid email', () => {
    const { parameters } = updateUserTool(deps);
    expect(() => parameters.parse({ id: 2 })).toThrow(/at least one of name, email or company/);
    expect(parameters.safeParse({ id: 2, email: 'not-an-email' }).success).toBe(false);
    expect(parameters.safeParse({ id: 2, email: 'bob@epam.com' }).success).toBe(true);
  });
});
