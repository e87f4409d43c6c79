import { addDays, formatIsoDate, isoWeekday, utcDate } from './iso-date';

/**
 * Holiday rules: each computes its dates for a given Gregorian year (no tables of years).
 * US holidays follow the federal rules; Easter is the Western (Gregorian) date.
 */

export interface HolidayDates {
  holiday: string;
  /** First day, `YYYY-MM-DD`. */
  start: string;
  /** Last day (inclusive), `YYYY-MM-DD`; equal to `start` for one-day holidays. */
  end: string;
  note?: string;
}

export interface HolidayRule {
  /** The display name the tool returns. */
  name: string;
  /** Other names people use; matched after normalisation (see `holidayKey`). */
  aliases: string[];
  dates(year: number): HolidayDates;
}

/** Easter Sunday by the anonymous Gregorian computus (Meeus/Jones/Butcher). */
export function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return utcDate(year, month, day);
}

/** The `n`-th (1-based) `weekday` (Monday = 0) of a month (1–12). */
function nthWeekday(year: number, month: number, weekday: number, n: number): Date {
  const first = utcDate(year, month, 1);
  return addDays(first, ((weekday - isoWeekday(first) + 7) % 7) + 7 * (n - 1));
}

/** The last `weekday` (Monday = 0) of a month (1–12). */
function lastWeekday(year: number, month: number, weekday: number): Date {
  const last = utcDate(year, month + 1, 0);
  return addDays(last, -((isoWeekday(last) - weekday + 7) % 7));
}

const hebrewDate = new Intl.DateTimeFormat('en-u-ca-hebrew', { timeZone: 'UTC', day: 'numeric', month: 'long' });

/** The Gregorian day that is 25 Kislev in the Hebrew year beginning in the autumn of `year` (always 28 Nov–27 Dec). */
export function kislev25(year: number): Date {
  for (let day = utcDate(year, 11, 20); day.getUTCFullYear() === year; day = addDays(day, 1)) {
    const parts = hebrewDate.formatToParts(day);
    const part = (type: string) => parts.find((p) => p.type === type)?.value;
    if (part('month') === 'Kislev' && part('day') === '25') return day;
  }
  throw new Error(`Could not find 25 Kislev in ${year} (does this Node.js have full ICU data?)`);
}

function oneDay(name: string, date: Date, note?: string): HolidayDates {
  const iso = formatIsoDate(date);
  return note === undefined ? { holiday: name, start: iso, end: iso } : { holiday: name, start: iso, end: iso, note };
}

function fixed(name: string, aliases: string[], month: number, day: number): HolidayRule {
  return { name, aliases, dates: (year) => oneDay(name, utcDate(year, month, day)) };
}

const MONDAY = 0;
const THURSDAY = 3;

export const HOLIDAYS: HolidayRule[] = [
  fixed("New Year's Day", ['new year', 'new years', 'new year day'], 1, 1),
  fixed("Valentine's Day", ['valentine', 'valentines', 'st valentines', 'saint valentines'], 2, 14),
  {
    name: 'Good Friday',
    aliases: [],
    dates: (year) =>
      oneDay('Good Friday', addDays(easterSunday(year), -2), 'The Friday before Western (Gregorian) Easter.'),
  },
  {
    name: 'Easter',
    aliases: ['easter sunday', 'western easter'],
    dates: (year) => oneDay('Easter', easterSunday(year), 'Western (Gregorian) Easter Sunday.'),
  },
  {
    name: 'Memorial Day',
    aliases: [],
    dates: (year) => oneDay('Memorial Day', lastWeekday(year, 5, MONDAY), 'US: the last Monday of May.'),
  },
  fixed('Independence Day', ['fourth of july', '4th of july', 'july 4', 'july 4th', 'us independence day'], 7, 4),
  {
    name: 'Labor Day',
    aliases: ['labour day'],
    dates: (year) => oneDay('Labor Day', nthWeekday(year, 9, MONDAY, 1), 'US: the first Monday of September.'),
  },
  fixed('Halloween', ['all hallows eve'], 10, 31),
  {
    name: 'Thanksgiving',
    aliases: ['us thanksgiving', 'thanksgiving day'],
    dates: (year) =>
      oneDay('Thanksgiving', nthWeekday(year, 11, THURSDAY, 4), 'US Thanksgiving: the fourth Thursday of November.'),
  },
  {
    name: 'Hanukkah',
    aliases: ['chanukah', 'hanukah', 'chanukkah', 'hannukah', 'hanukka', 'chanuka', 'festival of lights'],
    dates: (year) => {
      const start = addDays(kislev25(year), -1);
      const [first, last, end] = [start, addDays(start, 7), addDays(start, 8)].map(formatIsoDate);
      return {
        holiday: 'Hanukkah',
        start: first,
        end,
        note: `Eight nights: the first candle is lit at sundown on ${first}, the last on ${last}; it ends at nightfall on ${end}.`,
      };
    },
  },
  fixed('Christmas Eve', [], 12, 24),
  fixed('Christmas Day', ['christmas', 'xmas', 'x mas'], 12, 25),
  fixed("New Year's Eve", ['new years eve', 'new year eve', 'silvester'], 12, 31),
];

/**
 * The lookup key of a holiday name: lower case, apostrophes dropped, punctuation to spaces,
 * a leading "the" and a trailing "day" or "sunday" removed ("Christmas Day" and "christmas",
 * "Easter Sunday" and "easter", "Valentine’s Day" and "valentines" share a key).
 */
export function holidayKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .replace(/^the /, '')
    .replace(/ (day|sunday)$/, '');
}

const RULES_BY_KEY = new Map<string, HolidayRule>(
  HOLIDAYS.flatMap((rule) => [rule.name, ...rule.aliases].map((alias) => [holidayKey(alias), rule] as const)),
);

/** The rule for a holiday name in any of its accepted spellings, or `undefined`. */
export function findHoliday(name: string): HolidayRule | undefined {
  return RULES_BY_KEY.get(holidayKey(name));
}
