/**
 * Calendar dates as `YYYY-MM-DD` strings. Arithmetic runs on `Date`s at UTC midnight, so no time
 * zone or daylight-saving change ever moves a day.
 */

const DAY_MS = 86_400_000;

/** The UTC midnight of year, month (1–12) and day. */
export function utcDate(year: number, month: number, day: number): Date {
  return new Date(Date.UTC(year, month - 1, day));
}

/** Parses `YYYY-MM-DD` to its UTC midnight (the caller validates the format, e.g. with `z.iso.date()`). */
export function parseIsoDate(text: string): Date {
  const [year, month, day] = text.split('-').map(Number);
  return utcDate(year, month, day);
}

/** Formats a date as `YYYY-MM-DD` (its UTC calendar day). */
export function formatIsoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The UTC calendar day of an instant, as a UTC midnight. */
export function utcDay(instant: Date): Date {
  return utcDate(instant.getUTCFullYear(), instant.getUTCMonth() + 1, instant.getUTCDate());
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: Date, to: Date): number {
  return Math.round((to.getTime() - from.getTime()) / DAY_MS);
}

/** Day of the week with Monday = 0 … Sunday = 6 (ISO order). */
export function isoWeekday(date: Date): number {
  return (date.getUTCDay() + 6) % 7;
}
