import { z } from 'zod';
import { defineTool, ToolError } from '../../tools/define';
import type { DemoDeps } from '../demo-db';
import { findHoliday, HOLIDAYS, type HolidayDates } from './holidays';
import { formatIsoDate, utcDay } from './iso-date';

/**
 * `resolve_holiday`: the dates of a named holiday, computed for the year (never looked up).
 *
 * Without `year` it returns the next occurrence whose last day is today or later (UTC, from
 * `deps.now()`), so a holiday in progress counts: on 2025-01-01 "Hanukkah" is the one that began
 * on 2024-12-25. Names match case-insensitively and tolerate "Day"/"Sunday", apostrophes and common
 * spellings ("christmas day", "Easter Sunday", "valentines", "Chanukah"); a trailing year in the name
 * ("Hanukkah 2027") is used when `year` is not given. An unknown name throws, listing the supported ones.
 */
export function resolveHolidayTool(deps: Pick<DemoDeps, 'now'>) {
  const supported = HOLIDAYS.map((rule) => rule.name).join(', ');
  return defineTool({
    name: 'resolve_holiday',
    effect: 'read',
    description:
      'Turns a holiday name into dates. Returns { holiday, start, end, note? } with ISO dates (YYYY-MM-DD); ' +
      'end is the last day of the holiday, inclusive (start == end for one-day holidays). ' +
      'Without a year it returns the next occurrence (one in progress counts). ' +
      `Supported: ${supported}. ` +
      'For a hotel stay, check-out is the day after the last night: one night from start means check_out = start + 1 day.',
    parameters: z.object({
      name: z.string().trim().min(1).describe('Holiday name, e.g. "Hanukkah", "Easter", "Thanksgiving", "Christmas".'),
      year: z
        .number()
        .int()
        .min(1583)
        .max(9999)
        .optional()
        .describe('Gregorian year the holiday starts in; leave out for the next occurrence.'),
    }),
    execute: ({ name, year }): HolidayDates => {
      const yearInName = /\s(\d{4})$/.exec(name);
      const rule = findHoliday(yearInName ? name.slice(0, yearInName.index) : name);
      if (!rule) throw new ToolError(`Unknown holiday "${name}". Supported holidays: ${supported}.`);

      const explicitYear = year ?? (yearInName ? Number(yearInName[1]) : undefined);
      if (explicitYear !== undefined) return rule.dates(explicitYear);

      const today = formatIsoDate(utcDay(deps.now()));
      const thisYear = deps.now().getUTCFullYear();
      // Start a year back: a holiday that began last year (Hanukkah) may still be in progress.
      for (let y = thisYear - 1; ; y++) {
        const dates = rule.dates(y);
        if (dates.end >= today) return dates;
      }
    },
  });
}
