import { describe, expect, it } from 'vitest';
import { People } from '../../src/contract/people/people';
import { authenticate, generateToken } from '../../src/http/tokens';
import { peopleOf } from '../../src/project/people';
import { peopleOfTokens, tokenSha256 } from '../../src/settings';

const directory = (text: string) => new People([{ source: 'WAVELOOP_HTTP_TOKENS', people: peopleOfTokens(text) }]);

describe('people and their tokens', () => {
  it('WAVELOOP_HTTP_TOKENS: name:token, and name:token:groups joined by +; only the digest is kept', () => {
    expect(peopleOfTokens(' alice:alice-secret-1:finance+ops , ops-bot:ops-bot-secret ,')).toEqual([
      { name: 'alice', groups: ['finance', 'ops'], tokenSha256: tokenSha256('alice-secret-1') },
      { name: 'ops-bot', groups: [], tokenSha256: tokenSha256('ops-bot-secret') },
    ]);
    expect(JSON.stringify(peopleOfTokens('alice:alice-secret-1'))).not.toContain('alice-secret-1');
  });

  it('WAVELOOP_HTTP_TOKENS: says which entry is wrong, never its token', () => {
    expect(() => peopleOfTokens('alice:alice-secret-1,bob')).toThrow(
      'WAVELOOP_HTTP_TOKENS: entry 2 (bob) is not name:token or name:token:group+group',
    );
    expect(() => peopleOfTokens(':alice-secret-1')).toThrow('entry 1 is not name:token');
    expect(() => peopleOfTokens('alice:short')).toThrow('entry 1 (alice): the token is shorter than 12 characters.');
    expect(() => peopleOfTokens('alice:alice+secret-1')).toThrow('a token holds no "+"');
    expect(() => peopleOfTokens('alice:a:b:c-long-token')).toThrow('entry 1 (alice) is not name:token');
    expect(() => peopleOfTokens('alice:alice-secret-1:')).toThrow('is not name:token');
    expect(() => peopleOfTokens('alice:alice-secret-1:finance++ops')).toThrow('groups are names joined by "+"');
    try {
      peopleOfTokens('alice:s3cr3t');
    } catch (err) {
      expect((err as Error).message).not.toContain('s3cr3t');
    }
  });

  it('the directory refuses a person twice, and one token held by two people, naming them', () => {
    expect(() => directory('alice:alice-secret-1,alice:alice-secret-2')).toThrow(
      'alice is declared twice (WAVELOOP_HTTP_TOKENS).',
    );
    expect(() => directory('alice:same-token-12,bob:bob-secret-12,carol:same-token-12')).toThrow(
      'alice and carol share one token; give each their own.',
    );
    const fromConfig = [{ name: 'alice', groups: ['ops'], tokenSha256: tokenSha256('another-token') }];
    expect(() => peopleOf({ people: peopleOfTokens('alice:alice-secret-1') }, { people: fromConfig })).toThrow(
      'alice is declared twice (WAVELOOP_HTTP_TOKENS and the config’s people).',
    );
  });

  it("the directory resolves a rule's approvers: a group's members, a person; an unknown name is the problem", () => {
    const people = directory('alice:alice-secret-1:finance,bob:bob-secret-12:finance+ops,carol:carol-secret-1:ops');
    expect(people.resolve(['finance'])).toEqual({ label: 'finance', names: ['alice', 'bob'] });
    expect(people.resolve(['ops', 'alice'])).toEqual({ label: 'ops or alice', names: ['alice', 'bob', 'carol'] });
    expect(people.resolve(['payroll'])).toEqual({
      problem: 'approvers name payroll, which is neither a group nor a person (groups: finance, ops)',
    });
    expect(people.problemOf({ approvers: ['finance'], quorum: 2 }, 'tool pay')).toBeUndefined();
    expect(people.problemOf({ approvers: ['finance'], quorum: 2, fourEyes: true }, 'tool pay')).toBe(
      'tool pay: quorum 2 is more than the 1 person who could approve (four eyes: the run’s starter may not)',
    );
    expect(people.problemOf({ approvers: ['finance'], quorum: 0 }, 'tool pay')).toBe(
      'tool pay: quorum must be a whole number of at least 1',
    );
  });

  it('authenticate: the person of a bearer token, else nothing', () => {
    const people = directory('alice:alice-secret-1:finance,bob:bob-secret-12');
    expect(authenticate('Bearer bob-secret-12', people)?.name).toBe('bob');
    expect(authenticate('bearer alice-secret-1', people)).toMatchObject({ name: 'alice', groups: ['finance'] });
    expect(authenticate('Bearer alice-secret-', people)).toBeUndefined();
    expect(authenticate('Bearer alice-secret-1X', people)).toBeUndefined();
    expect(authenticate('Basic alice-secret-1', people)).toBeUndefined();
    expect(authenticate(undefined, people)).toBeUndefined();
    expect(authenticate('Bearer alice-secret-1', new People())).toBeUndefined();
  });

  it('generateToken: 32 random bytes, base64url (no : , or +)', () => {
    const token = generateToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(token);
  });
});
