import { z } from 'zod';
import { defineTool, ToolError } from '../../tools/define';
import type { DemoDeps } from '../demo-db';
import { addDays, formatIsoDate, isoWeekday, parseIsoDate, utcDate, utcDay } from './iso-date';

export interface DateRange {
  hint: string;
  /** First day, `YYYY-MM-DD`. */
  start: string;
  /** Last day (inclusive), `YYYY-MM-DD`. */
  end: string;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const SMALL_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const EXAMPLES =
  'today, tomorrow, day after tomorrow, in 3 days, in 2 weeks, this week, next week, this weekend, ' +
  'next weekend, friday, next monday, end of month, next month, 2026-12-24';

/** Monday = 0 … Sunday = 6 from a full or three-letter English name ("thu", "thurs" and "tues" too). */
function weekdayIndex(word: string): number | undefined {
  const index = WEEKDAYS.findIndex((day) => day === word || (word.length >= 3 && day.startsWith(word)));
  return index === -1 ? undefined : index;
}

/**
 * Reads a relative date hint against `today` (a UTC midnight). Ranges are inclusive days.
 *
 * Weeks run Monday–Sunday. "this week"/"next week" are Mon–Sun of the current/next week.
 * "this weekend" is the Saturday–Sunday of the current week and "next weekend" the Saturday–Sunday
 * of next week: on Monday–Friday "this weekend" is the coming one and "next weekend" the one after;
 * on Saturday or Sunday "this weekend" is the one under way (it may start yesterday) and "next
 * weekend" is six or seven days away. Likewise "next friday" is the Friday of next week, while
 * "friday", "on friday" and "this friday" are the first Friday on or after today.
 */
export function resolveDateHint(hint: string, today: Date): Omit<DateRange, 'hint'> | undefined {
  const text = hint
    .toLowerCase()
    .replace(/[.,!?]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const range = (start: Date, end: Date = start) => ({ start: formatIsoDate(start), end: formatIsoDate(end) });
  const monday = addDays(today, -isoWeekday(today));

  if (/^\d{4}-\d{2}-\d{2}$/.test(text) && z.iso.date().safeParse(text).success) return range(parseIsoDate(text));
  if (text === 'today' || text === 'tonight' || text === 'now') return range(today);
  if (text === 'tomorrow' || text === 'tomorrow night') return range(addDays(today, 1));
  if (/^(the )?day after tomorrow$/.test(text)) return range(addDays(today, 2));
  if (text === 'this week') return range(monday, addDays(monday, 6));
  if (text === 'next week') return range(addDays(monday, 7), addDays(monday, 13));
  if (/^(this |the )?weekend$/.test(text)) return range(addDays(monday, 5), addDays(monday, 6));
  if (text === 'next weekend') return range(addDays(monday, 12), addDays(monday, 13));
  if (/^(the )?end of (the |this )?month$/.test(text)) {
    return range(utcDate(today.getUTCFullYear(), today.getUTCMonth() + 2, 0));
  }
  if (text === 'this month' || text === 'next month') {
    const month = today.getUTCMonth() + 1 + (text === 'next month' ? 1 : 0);
    return range(utcDate(today.getUTCFullYear(), month, 1), utcDate(today.getUTCFullYear(), month + 1, 0));
  }

  const inCount = /^(?:in (\w+) (days?|weeks?)|(\w+) (days?|weeks?) from (?:now|today))$/.exec(text);
  if (inCount) {
    const word = inCount[1] ?? inCount[3];
    const count = /^\d+$/.test(word) ? Number(word) : SMALL_NUMBERS[word];
    if (count === undefined) return undefined;
    return range(addDays(today, (inCount[2] ?? inCount[4]).startsWith('week') ? 7 * count : count));
  }

  const named = /^(this |next |on )?(\w+)$/.exec(text);
  const weekday = named ? weekdayIndex(named[2]) : undefined;
  if (named && weekday !== undefined) {
    if (named[1] === 'next ') return range(addDays(monday, 7 + weekday));
    return range(addDays(today, (weekday - isoWeekday(today) + 7) % 7));
  }
  return undefined;
}

/** `resolve_date_hint`: a relative date phrase to an inclusive ISO date range; see {@link resolveDateHint}. */
export function resolveDateHintTool(deps: Pick<DemoDeps, 'now'>) {
  return defineTool({
    name: 'resolve_date_hint',
    effect: 'read',
    description:
      'Turns a relative date phrase into ISO dates { hint, start, end } (end inclusive; start == end for a single day). ' +
      `Accepts: ${EXAMPLES}. ` +
      'Weeks run Monday to Sunday: "this weekend" is the Saturday–Sunday of the current week, "next weekend" the ' +
      'Saturday–Sunday of next week, and "next friday" the Friday of next week. ' +
      'For a hotel stay over a range, check_out is the day after end. For holidays use resolve_holiday.',
    parameters: z.object({
      hint: z
        .string()
        .trim()
        .min(1)
        .describe('The phrase, e.g. "next weekend", "tomorrow", "in 3 days", "next friday".'),
      today: z.iso.date().optional().describe("Today's date (YYYY-MM-DD); leave out to use the current date."),
    }),
    execute: ({ hint, today }): DateRange => {
      const resolved = resolveDateHint(hint, today ? parseIsoDate(today) : utcDay(deps.now()));
      if (!resolved) {
        throw new ToolError(`Can't read the date hint "${hint}". Accepted hints look like: ${EXAMPLES}.`);
      }
      return { hint, ...resolved };
    },
  });
}
