/**
 * Pure helpers of the goal tree (seed 002): dependency levels of a decomposition, and the
 * near-duplicate test behind cycle detection. Deterministic, no I/O: safe in workflow code.
 */

export interface Levels {
  /** Sub-goal indices by level; a level's sub-goals run in parallel, levels one after another. */
  levels: number[][];
  /** Why the dependencies could not be used (a bad index or a cycle); the levels are then sequential. */
  problem?: string;
}

/**
 * Groups sub-goals into levels by their `dependencies` (0-based indices): a sub-goal is in the
 * level after the last of its dependencies, so independent ones share level 0. An index outside the
 * list, or a dependency cycle (a sub-goal depending on itself included), is reported in `problem` and the sub-goals fall back to one level each, in order.
 */
export function groupIntoLevels(dependencies: readonly (readonly number[])[]): Levels {
  const count = dependencies.length;
  const sequential = () => dependencies.map((_, i) => [i]);
  const bad: string[] = [];
  dependencies.forEach((deps, i) =>
    deps.forEach((d) => {
      if (!Number.isInteger(d) || d < 0 || d >= count) bad.push(`sub-goal ${i} depends on ${d}`);
    }),
  );
  if (bad.length > 0) {
    return { levels: sequential(), problem: `Bad dependency index (${bad.join(', ')}): the sub-goals ran one after another.` };
  }

  const level = new Array<number>(count).fill(-1);
  let placed = 0;
  for (let round = 0; placed < count; round++) {
    const ready = dependencies
      .map((_, i) => i)
      .filter((i) => level[i] === -1 && dependencies[i].every((d) => level[d] !== -1 && level[d] < round));
    if (ready.length === 0) {
      const stuck = dependencies.map((_, i) => i).filter((i) => level[i] === -1);
      return {
        levels: sequential(),
        problem: `Dependency cycle among sub-goals ${stuck.join(', ')}: the sub-goals ran one after another.`,
      };
    }
    ready.forEach((i) => (level[i] = round));
    placed += ready.length;
  }
  const levels: number[][] = [];
  level.forEach((l, i) => (levels[l] ??= []).push(i));
  return { levels };
}

/** Goals at least this similar (Jaccard overlap of their normalised words) count as the same goal. */
export const CYCLE_SIMILARITY = 0.8;

const STOP_WORDS = new Set(
  'a an the of on in at to for from by with about and or as is are be this that these those it its into onto our your their my'.split(' '),
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
