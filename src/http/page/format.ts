/** Small formatting of the inbox page: times, JSON, long text. */

/** How long ago `iso` was, from `now`, in words a person reads at a glance: `40 s`, `12 min`, `3 h`, `2 d`. */
export function ago(iso: string | Date, now: Date = new Date()): string {
  const seconds = Math.max(0, Math.round((now.getTime() - new Date(iso).getTime()) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** `value` as indented JSON. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** `text` cut to `max` characters, with an ellipsis when it was longer. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
