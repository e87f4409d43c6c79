import * as vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PersonSchema } from '../../src/contract/people/people';
import { peopleOfTokens, tokenSha256 } from '../../src/settings';
import { waveloop } from '../support/cli';

/** The value of a line `<label> <value>` of `text`. */
function valueAfter(text: string, label: string): string {
  const line = text.split('\n').find((l) => l.startsWith(label));
  expect(line, `a line starting "${label}" in:\n${text}`).toBeDefined();
  return line!.slice(label.length).trim();
}

describe('waveloop token: a token for a person of waveloop serve', () => {
  it('prints a token, its SHA-256, a config entry PersonSchema takes and a WAVELOOP_HTTP_TOKENS entry, all for the same token', async () => {
    const out = await waveloop(['token', '--name', 'alice', '--groups', 'finance,ops'], {});
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);

    const token = valueAfter(out.stdout, 'Token:');
    const digest = valueAfter(out.stdout, 'tokenSha256:');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(digest).toBe(tokenSha256(token));

    const literal = /people: \[(\{.*\})\],/.exec(out.stdout)?.[1];
    expect(literal, out.stdout).toBeDefined();
    const entry = PersonSchema.parse(vm.runInNewContext(`(${literal})`));
    expect(entry).toEqual({ name: 'alice', groups: ['finance', 'ops'], tokenSha256: digest });

    const variable = /WAVELOOP_HTTP_TOKENS='([^']+)'/.exec(out.stdout)?.[1];
    expect(peopleOfTokens(variable!)).toEqual([entry]);
  });

  it('without groups: a name:token pair, and a person in no group', async () => {
    const out = await waveloop(['token', '--name', 'ops-bot'], {});
    expect(out.code).toBe(0);
    const token = valueAfter(out.stdout, 'Token:');
    expect(out.stdout).toContain(`WAVELOOP_HTTP_TOKENS='ops-bot:${token}'`);
    expect(out.stdout).toContain(`{ name: 'ops-bot', groups: [], tokenSha256: '${tokenSha256(token)}' }`);
  });

  it('--json: { token, tokenSha256 }, a fresh token each time', async () => {
    const [first, second] = await Promise.all([waveloop(['token', '--json'], {}), waveloop(['token', '--json'], {})]);
    const made = JSON.parse(first.stdout) as { token: string; tokenSha256: string };
    expect(Object.keys(made)).toEqual(['token', 'tokenSha256']);
    expect(made.tokenSha256).toBe(tokenSha256(made.token));
    expect((JSON.parse(second.stdout) as { token: string }).token).not.toBe(made.token);
  });

  it('a name or a group the people directory would refuse: exit 2, saying why, and no token', async () => {
    const name = await waveloop(['token', '--name', 'ann:lee'], {});
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('a name has no spaces and none of : , +');
    expect(name.stdout).toBe('');
    const groups = await waveloop(['token', '--name', 'ann', '--groups', 'finance+ops'], {});
    expect(groups.code).toBe(2);
    expect(groups.stderr).toContain('a group name has no spaces and none of : , +');
  });
});
