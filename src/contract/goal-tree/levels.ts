/**
 * The dependency levels of a decomposition: which sub-goals run
 * together, and in what order. Pure and free of zod: the workflow plans its levels with it, and the
 * client reads a tree's levels back from its history with it.
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
 * list, or a dependency cycle (a sub-goal depending on itself included), is reported in `problem`,
 * and the sub-goals fall back to one level each, in order.
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
    return {
      levels: sequential(),
      problem: `Bad dependency index (${bad.join(', ')}): the sub-goals ran one after another.`,
    };
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
