/**
 * One-line activity summaries, so the Web UI's timeline reads like the run's story:
 * `iteration 3 · model`, `wave 3 · search_users(name=Bob)`.
 */

const MAX_ARG_CHARS = 40;
const MAX_SUMMARY_CHARS = 120;

export function modelSummary(iteration: number): string {
  return `iteration ${iteration} · model`;
}

export function toolSummary(iteration: number, tool: string, args: Record<string, unknown>): string {
  const shown = Object.entries(args)
    .map(([key, value]) => `${key}=${clip(typeof value === 'string' ? value : JSON.stringify(value), MAX_ARG_CHARS)}`)
    .join(', ');
  return clip(`wave ${iteration} · ${tool}(${shown})`, MAX_SUMMARY_CHARS);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
