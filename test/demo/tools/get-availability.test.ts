import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getAvailabilityTool } from '../../../src/demo/tools/get-availability';
import { callTool, makeDemoDeps, type TempDemoDeps } from '../../support/tool-context';

let deps: TempDemoDeps;
beforeEach(() => {
  deps = makeDemoDeps();
});
afterEach(() => deps.cleanup());

const availability = (check_in: string, check_out: string) =>
  callTool(getAvailabilityTool(deps), { check_in, check_out });
const freeRooms = async (check_in: string, check_out: string) =>
  (await availability(check_in, check_out)).available.map((r) => r.room);
const allRooms = () =>
  (deps.db.prepare('SELECT number FROM rooms ORDER BY number').all() as { number: string }[]).map((r) => r.number);

describe('get_availability', () => {
  it('get_availability: excludes rooms whose bookings overlap [check_in, check_out)', async () => {
    deps.db.prepare('DELETE FROM bookings').run();
    const book = deps.db.prepare("INSERT INTO bookings (room_id, check_in, check_out, guest) VALUES (?, ?, ?, 'x')");
    // The stay: nights of 02-05, 02-06 and 02-07; rooms 1-8 are numbered 101, 102, 103, 104, 201, 202, 301, 302.
    book.run(1, '2027-02-01', '2027-02-05'); // departs on our check-in day: free
    book.run(2, '2027-02-08', '2027-02-10'); // arrives on our check-out day: free
    book.run(3, '2027-02-03', '2027-02-06'); // overlaps the start
    book.run(4, '2027-02-07', '2027-02-09'); // overlaps the end
    book.run(5, '2027-02-06', '2027-02-07'); // inside
    book.run(6, '2027-02-01', '2027-02-20'); // around
    expect(await freeRooms('2027-02-05', '2027-02-08')).toEqual(['101', '102', '301', '302']);
  });

  it('get_availability: seeded bookings make some rooms unavailable around Hanukkah 2026', async () => {
    const result = await availability('2026-12-04', '2026-12-05');
    expect(result.nights).toBe(1);
    expect(result.available.length).toBeGreaterThan(0);
    expect(result.available.length).toBeLessThan(allRooms().length);
    expect(result.available.map((r) => r.room)).not.toContain('101');
  });

  it('get_availability: every room is free when nothing is booked', async () => {
    expect(await freeRooms('2030-06-01', '2030-06-03')).toEqual(allRooms());
  });

  it('get_availability: totals are rate × nights', async () => {
    const result = await availability('2030-06-01', '2030-06-04');
    expect(result).toMatchObject({ check_in: '2030-06-01', check_out: '2030-06-04', nights: 3 });
    for (const room of result.available) expect(room.total_usd).toBeCloseTo(room.rate_usd * 3, 2);
    expect(result.available[0]).toEqual({ room: '101', type: 'single', rate_usd: 120, total_usd: 360 });
  });

  it('get_availability: rejects bad dates and check_out not after check_in', async () => {
    await expect(availability('2026-12-4', '2026-12-05')).rejects.toThrow();
    await expect(availability('2026-02-30', '2026-03-02')).rejects.toThrow();
    await expect(availability('2026-12-05', '2026-12-05')).rejects.toThrow(/check_out must be/);
    await expect(availability('2026-12-05', '2026-12-01')).rejects.toThrow(/check_out must be/);
  });
});
