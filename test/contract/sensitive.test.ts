import { describe, expect, it } from 'vitest';
import { maskArgs, maskValue, unmaskArgs } from '../../src/contract/sensitive';

const CARD = '4111111111111111';

describe('maskValue', () => {
  it('shows the last four characters of a value longer than eight, else nothing', () => {
    expect(maskValue(CARD)).toBe('•••• 1111');
    expect(maskValue('DE89370400440532013000')).toBe('•••• 3000');
    expect(maskValue('123456789')).toBe('•••• 6789');
    expect(maskValue('12345678')).toBe('••••');
    expect(maskValue('hunter2')).toBe('••••');
    expect(maskValue('')).toBe('••••');
  });

  it('masks what is not a string by its JSON: a number, an object, a boolean', () => {
    expect(maskValue(4111111111111111)).toBe('•••• 1111');
    expect(maskValue(1234)).toBe('••••');
    expect(maskValue({ number: CARD, cvc: '123' })).toBe('•••• 23"}');
    expect(maskValue({ number: CARD })).not.toContain(CARD);
    expect(maskValue(true)).toBe('••••');
  });
});

describe('maskArgs', () => {
  it('masks the named top-level fields, leaves the others, and never changes the arguments it was given', () => {
    const args = { cardNumber: CARD, amount: 25, note: 'lunch' };
    expect(maskArgs(args, ['cardNumber'])).toEqual({ cardNumber: '•••• 1111', amount: 25, note: 'lunch' });
    expect(args.cardNumber).toBe(CARD);
    expect(maskArgs(args, ['cardNumber', 'amount'])).toEqual({
      cardNumber: '•••• 1111',
      amount: '••••',
      note: 'lunch',
    });
  });

  it('no list, an empty list, or a field the call did not pass: the arguments as they are', () => {
    const args = { cardNumber: CARD };
    expect(maskArgs(args, undefined)).toBe(args);
    expect(maskArgs(args, [])).toBe(args);
    expect(maskArgs({ amount: 3 }, ['cardNumber'])).toEqual({ amount: 3 });
    expect(maskArgs({}, ['cardNumber'])).toEqual({});
  });

  it('null and undefined stay (nothing to hide); a nested object or array is masked whole', () => {
    expect(maskArgs({ iban: null, password: undefined }, ['iban', 'password'])).toEqual({
      iban: null,
      password: undefined,
    });
    const masked = maskArgs({ card: { number: CARD, expiry: '12/30' }, pins: ['1234', '5678'] }, ['card', 'pins']);
    expect(JSON.stringify(masked)).not.toContain(CARD);
    expect(masked.pins).toBe('•••• 78"]');
  });

  it('masks only top-level fields: a sensitive name nested under another field is not looked for', () => {
    expect(maskArgs({ payment: { cardNumber: CARD } }, ['cardNumber'])).toEqual({ payment: { cardNumber: CARD } });
  });
});

describe('unmaskArgs: edited arguments that leave a sensitive value as shown keep the real value', () => {
  const real = { cardNumber: CARD, amount: 25 };

  it('a sensitive field edited to its own mask keeps the real value; the other edits count', () => {
    expect(unmaskArgs({ cardNumber: '•••• 1111', amount: 30 }, real, ['cardNumber'])).toEqual({
      cardNumber: CARD,
      amount: 30,
    });
  });

  it('a new value replaces the real one, even one that looks like a mask of something else', () => {
    expect(unmaskArgs({ cardNumber: '5500000000000004', amount: 25 }, real, ['cardNumber'])).toEqual({
      cardNumber: '5500000000000004',
      amount: 25,
    });
    expect(unmaskArgs({ cardNumber: '•••• 9999', amount: 25 }, real, ['cardNumber'])).toEqual({
      cardNumber: '•••• 9999',
      amount: 25,
    });
  });

  it('a field that is not sensitive is taken as edited, mask or not; a sensitive field left out stays out', () => {
    expect(unmaskArgs({ cardNumber: '•••• 1111', amount: '••••' }, real, [])).toEqual({
      cardNumber: '•••• 1111',
      amount: '••••',
    });
    expect(unmaskArgs({ amount: 30 }, real, ['cardNumber'])).toEqual({ amount: 30 });
  });

  it('a short value (masked as •••• alone) and a value that is no string come back too', () => {
    expect(unmaskArgs({ pin: '••••' }, { pin: '1234' }, ['pin'])).toEqual({ pin: '1234' });
    expect(unmaskArgs({ card: '•••• 1111' }, { card: 4111111111111111 }, ['card'])).toEqual({
      card: 4111111111111111,
    });
  });

  it('a field the call did not have has no real value to keep: the edit stands', () => {
    expect(unmaskArgs({ iban: '••••' }, { iban: null }, ['iban'])).toEqual({ iban: '••••' });
    expect(unmaskArgs({ iban: '••••' }, {}, ['iban'])).toEqual({ iban: '••••' });
  });
});
