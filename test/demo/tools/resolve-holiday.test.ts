import { describe, expect, it } from 'vitest';
import { resolveHolidayTool } from '../../../src/demo/tools/resolve-holiday';
import { callTool, FIXED_NOW } from '../../support/tool-context';

const resolve = (args: { name: string; year?: number }, now = FIXED_NOW) =>
  callTool(resolveHolidayTool({ now: () => now }), args);

describe('resolve_holiday', () => {
  it('resolve_holiday: Easter by the Gregorian computus', async () => {
    expect((await resolve({ name: 'Easter', year: 2025 })).start).toBe('2025-04-20');
    expect((await resolve({ name: 'Easter', year: 2026 })).start).toBe('2026-04-05');
    expect(await resolve({ name: 'easter sunday', year: 2027 })).toMatchObject({
      start: '2027-03-28',
      end: '2027-03-28',
    });
    expect((await resolve({ name: 'Easter', year: 2038 })).start).toBe('2038-04-25');
    expect((await resolve({ name: 'Easter', year: 2285 })).start).toBe('2285-03-22');
  });

  it('resolve_holiday: Good Friday is two days before Easter', async () => {
    expect((await resolve({ name: 'Good Friday', year: 2026 })).start).toBe('2026-04-03');
  });

  it('resolve_holiday: US holidays on their weekday rules', async () => {
    expect((await resolve({ name: 'Thanksgiving', year: 2026 })).start).toBe('2026-11-26');
    expect((await resolve({ name: 'Thanksgiving', year: 2025 })).start).toBe('2025-11-27');
    expect((await resolve({ name: 'Memorial Day', year: 2026 })).start).toBe('2026-05-25');
    expect((await resolve({ name: 'Labor Day', year: 2026 })).start).toBe('2026-09-07');
    expect((await resolve({ name: 'Fourth of July', year: 2026 })).start).toBe('2026-07-04');
  });

  it('resolve_holiday: Hanukkah starts at sundown before 25 Kislev and lasts eight nights', async () => {
    expect(await resolve({ name: 'Hanukkah', year: 2026 })).toMatchObject({
      holiday: 'Hanukkah',
      start: '2026-12-04',
      end: '2026-12-12',
    });
    expect((await resolve({ name: 'Hanukkah', year: 2026 })).note).toContain('2026-12-04');
    expect((await resolve({ name: 'Chanukah', year: 2025 })).start).toBe('2025-12-14');
    expect(await resolve({ name: 'hanukkah', year: 2024 })).toMatchObject({ start: '2024-12-25', end: '2025-01-02' });
  });

  it('resolve_holiday: fixed-date holidays are single days', async () => {
    expect(await resolve({ name: 'Christmas', year: 2026 })).toEqual({
      holiday: 'Christmas Day',
      start: '2026-12-25',
      end: '2026-12-25',
    });
    expect((await resolve({ name: "Valentine's Day", year: 2027 })).start).toBe('2027-02-14');
    expect((await resolve({ name: 'Halloween', year: 2027 })).start).toBe('2027-10-31');
  });

  it('resolve_holiday: names are matched case-insensitively, with "Day", apostrophes and the year tolerated', async () => {
    for (const name of ['christmas day', 'CHRISTMAS', 'Xmas', 'the Christmas Day']) {
      expect((await resolve({ name, year: 2026 })).holiday).toBe('Christmas Day');
    }
    for (const name of ["New Year's Day", 'new years day', 'New Year’s Day', 'new year']) {
      expect((await resolve({ name, year: 2027 })).start).toBe('2027-01-01');
    }
    expect((await resolve({ name: 'Hanukkah 2027' })).start).toBe('2027-12-24');
  });

  it('resolve_holiday: without a year, the next occurrence on or after today', async () => {
    // FIXED_NOW is 2026-11-22.
    expect((await resolve({ name: 'Hanukkah' })).start).toBe('2026-12-04');
    expect((await resolve({ name: 'Thanksgiving' })).start).toBe('2026-11-26');
    expect((await resolve({ name: 'Easter' })).start).toBe('2027-03-28');
    expect((await resolve({ name: 'Halloween' })).start).toBe('2027-10-31');
    expect((await resolve({ name: 'Thanksgiving' }, new Date('2026-11-26T23:59:00Z'))).start).toBe('2026-11-26');
  });

  it('resolve_holiday: a holiday still in progress counts as the next occurrence', async () => {
    expect((await resolve({ name: 'Hanukkah' }, new Date('2025-01-01T12:00:00Z'))).start).toBe('2024-12-25');
    expect((await resolve({ name: 'Hanukkah' }, new Date('2026-12-10T12:00:00Z'))).start).toBe('2026-12-04');
    expect((await resolve({ name: 'Hanukkah' }, new Date('2026-12-13T12:00:00Z'))).start).toBe('2027-12-24');
  });

  it('resolve_holiday: an unknown holiday throws, listing the supported names', async () => {
    await expect(resolve({ name: 'Festivus' })).rejects.toThrow(/Unknown holiday "Festivus".*Thanksgiving.*Hanukkah/);
  });
});
