import { describe, expect, it } from 'vitest';
import { resolveDateHintTool } from '../../../src/demo/tools/resolve-date-hint';
import { callTool, FIXED_NOW } from '../../support/tool-context';

/** The resolved range as "start" for a single day or "start..end". */
async function resolve(hint: string, today?: string): Promise<string> {
  const { start, end } = await callTool(resolveDateHintTool({ now: () => FIXED_NOW }), { hint, today });
  return start === end ? start : `${start}..${end}`;
}

describe('resolve_date_hint', () => {
  it('resolve_date_hint: FIXED_NOW is a Sunday', async () => {
    expect(FIXED_NOW.getUTCDay()).toBe(0);
  });

  it('resolve_date_hint: days relative to today (defaults to now, UTC)', async () => {
    expect(await resolve('today')).toBe('2026-11-22');
    expect(await resolve('Tomorrow')).toBe('2026-11-23');
    expect(await resolve('the day after tomorrow')).toBe('2026-11-24');
    expect(await resolve('in 3 days')).toBe('2026-11-25');
    expect(await resolve('in 2 weeks')).toBe('2026-12-06');
    expect(await resolve('in a week')).toBe('2026-11-29');
    expect(await resolve('ten days from now')).toBe('2026-12-02');
  });

  it('resolve_date_hint: weekends on a Sunday: this weekend is under way, next weekend is next week’s', async () => {
    expect(await resolve('this weekend')).toBe('2026-11-21..2026-11-22');
    expect(await resolve('next weekend')).toBe('2026-11-28..2026-11-29');
  });

  it('resolve_date_hint: weekends on a weekday: this weekend is the coming one, next weekend the one after', async () => {
    expect(await resolve('this weekend', '2026-11-25')).toBe('2026-11-28..2026-11-29');
    expect(await resolve('weekend', '2026-11-27')).toBe('2026-11-28..2026-11-29');
    expect(await resolve('next weekend', '2026-11-25')).toBe('2026-12-05..2026-12-06');
    expect(await resolve('next weekend', '2026-11-28')).toBe('2026-12-05..2026-12-06');
  });

  it('resolve_date_hint: weeks run Monday to Sunday', async () => {
    expect(await resolve('this week', '2026-11-25')).toBe('2026-11-23..2026-11-29');
    expect(await resolve('next week', '2026-11-25')).toBe('2026-11-30..2026-12-06');
    expect(await resolve('next week')).toBe('2026-11-23..2026-11-29');
  });

  it('resolve_date_hint: "next <weekday>" is in next week, a bare weekday is the first on or after today', async () => {
    expect(await resolve('next monday')).toBe('2026-11-23');
    expect(await resolve('next friday', '2026-11-25')).toBe('2026-12-04');
    expect(await resolve('friday', '2026-11-25')).toBe('2026-11-27');
    expect(await resolve('on Fri', '2026-11-25')).toBe('2026-11-27');
    expect(await resolve('this wednesday', '2026-11-25')).toBe('2026-11-25');
    expect(await resolve('next sunday')).toBe('2026-11-29');
  });

  it('resolve_date_hint: months', async () => {
    expect(await resolve('end of month')).toBe('2026-11-30');
    expect(await resolve('end of the month', '2028-02-03')).toBe('2028-02-29');
    expect(await resolve('next month', '2026-12-15')).toBe('2027-01-01..2027-01-31');
  });

  it('resolve_date_hint: passes an ISO date through', async () => {
    expect(await resolve('2027-01-17')).toBe('2027-01-17');
  });

  it('resolve_date_hint: an unreadable hint throws with examples', async () => {
    for (const hint of ['sometime soon', 'in many days', '2026-02-30', 'next fortnight']) {
      await expect(resolve(hint)).rejects.toThrow(/Can't read the date hint.*next weekend/);
    }
  });

  it('resolve_date_hint: rejects a malformed today', async () => {
    await expect(resolve('today', '22/11/2026')).rejects.toThrow();
  });
});
