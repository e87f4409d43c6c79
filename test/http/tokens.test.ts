import { describe, expect, it } from 'vitest';
import { authenticate, generateToken, parseTokens } from '../../src/http/tokens';

describe('HTTP tokens', () => {
  it('parseTokens: name:token pairs, a token may hold colons', () => {
    expect(parseTokens(' alice:s3cret , ops-bot:a:b:c ,')).toEqual([
      { name: 'alice', token: 's3cret' },
      { name: 'ops-bot', token: 'a:b:c' },
    ]);
  });

  it('parseTokens: says which pair is wrong, and refuses a name twice', () => {
    expect(() => parseTokens('alice:s3cret,bob')).toThrow('WAVELOOP_HTTP_TOKENS: pair 2 is not name:token.');
    expect(() => parseTokens(':s3cret')).toThrow('pair 1 is not name:token');
    expect(() => parseTokens('alice:a,alice:b')).toThrow('the name alice is given twice');
    expect(() => parseTokens('alice:same-token,bob:other,carol:same-token')).toThrow(
      'WAVELOOP_HTTP_TOKENS: alice and carol share one token; give each their own.',
    );
  });

  it('authenticate: the holder of a bearer token, else nothing', () => {
    const tokens = parseTokens('alice:s3cret,bob:t0ken');
    expect(authenticate('Bearer t0ken', tokens)).toBe('bob');
    expect(authenticate('bearer s3cret', tokens)).toBe('alice');
    expect(authenticate('Bearer s3cre', tokens)).toBeUndefined();
    expect(authenticate('Bearer s3cretX', tokens)).toBeUndefined();
    expect(authenticate('Basic s3cret', tokens)).toBeUndefined();
    expect(authenticate(undefined, tokens)).toBeUndefined();
    expect(authenticate('Bearer s3cret', [])).toBeUndefined();
  });

  it('generateToken: 32 random bytes, base64url', () => {
    const token = generateToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(token);
  });
});
