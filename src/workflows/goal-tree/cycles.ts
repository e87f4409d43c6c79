/**
 * Cycle detection of the goal tree: a sub-goal that repeats a goal on
 * its stack, in the same or nearly the same words, is not pursued again. Pure and deterministic.
 */

/** Goals at least this similar (Jaccard overlap of their normalised words) count as the same goal. */
export const CYCLE_SIMILARITY = 0.8;

const STOP_WORDS = new Set(
  'a an the of on in at to for from by with about and or as is are be this that these those it its into onto our your their my'.split(
    ' ',
  ),
);

/** The words of a goal that carry meaning: lower case, no punctuation or stop words, a plural `s` dropped. */
export function goalWords(goal: string): string[] {
  return goal
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((word) => word && !STOP_WORDS.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word));
}

/** 1 for goals with the same normalised words, else the Jaccard overlap of their word sets. */
export function goalSimilarity(a: string, b: string): number {
  const wa = new Set(goalWords(a));
  const wb = new Set(goalWords(b));
  if (wa.size === 0 && wb.size === 0) return a.trim().toLowerCase() === b.trim().toLowerCase() ? 1 : 0;
  const shared = [...wa].filter((w) => wb.has(w)).length;
  return shared / (wa.size + wb.size - shared);
}

/** The goal on the stack that `goal` repeats (equal or nearly the same), if any, with its similarity. */
export function findCycle(
  goal: string,
  stack: readonly string[],
  threshold = CYCLE_SIMILARITY,
): { ancestor: string; similarity: number } | undefined {
  let best: { ancestor: string; similarity: number } | undefined;
  for (const ancestor of stack) {
    const similarity = goalSimilarity(goal, ancestor);
    if (similarity >= threshold && (!best || similarity > best.similarity)) best = { ancestor, similarity };
  }
  return best;
}
