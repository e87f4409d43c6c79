import { z } from 'zod';
import { defineTool } from '../../tools/define';
import type { DemoDeps } from '../demo-db';
import { daysBetween, parseIsoDate } from './iso-date';

export interface AvailableRoom {
  room: string;
  type: string;
  rate_usd: number;
  /** `rate_usd × nights`, rounded to cents. */
  total_usd: number;
}

export interface Availability {
  check_in: string;
  check_out: string;
  nights: number;
  available: AvailableRoom[];
}

/**
 * `get_availability`: rooms free for every night from `check_in` up to (not including) `check_out`.
 * A room is free when none of its bookings overlaps [check_in, check_out); a booking that checks out
 * on the day another checks in does not overlap. Rooms are ordered by number.
 */
export function getAvailabilityTool(deps: DemoDeps) {
  const query = deps.db.prepare(`
    SELECT r.number AS room, r.type, r.rate_usd FROM rooms r
    WHERE NOT EXISTS (
      SELECT 1 FROM bookings b
      WHERE b.room_id = r.id AND b.check_in < @check_out AND b.check_out > @check_in
    )
    ORDER BY r.number`);

  return defineTool({
    name: 'get_availability',
    effect: 'read',
    description:
      'Lists hotel rooms free for a stay. check_in is the first night, check_out the departure day ' +
      '(one night on 2026-12-04 is check_in 2026-12-04, check_out 2026-12-05). Returns ' +
      '{ check_in, check_out, nights, available: [{ room, type, rate_usd, total_usd }] }; an empty list means fully booked.',
    parameters: z
      .object({
        check_in: z.iso.date().describe('Arrival date, YYYY-MM-DD (the first night).'),
        check_out: z.iso.date().describe('Departure date, YYYY-MM-DD; must be after check_in.'),
      })
      .refine((args) => args.check_out > args.check_in, {
        message: 'check_out must be at least one day after check_in.',
        path: ['check_out'],
      }),
    execute: ({ check_in, check_out }): Availability => {
      const nights = daysBetween(parseIsoDate(check_in), parseIsoDate(check_out));
      const rooms = query.all({ check_in, check_out }) as Array<Omit<AvailableRoom, 'total_usd'>>;
      const available = rooms.map((room) => ({ ...room, total_usd: Math.round(room.rate_usd * nights * 100) / 100 }));
      return { check_in, check_out, nights, available };
    },
  });
}
