/**
 * Modules that workflow code loads on first use instead of importing them.
 *
 * The SDK isolates runs that share a worker thread by giving each workflow a fresh module scope: every
 * workflow that starts (and every one that is replayed after leaving the worker's cache) evaluates the
 * modules of the workflow bundle again. zod's own modules and our schemas took ~95 % of that, 10–20 ms of
 * CPU per workflow start on a 2-core machine (`npm run bench`, scenario 4, profiled): a start burst of
 * 100 runs spent 1–2 s of the workflow thread on it. So the modules workflow code imports are free of
 * zod (test/workflows/bundle-imports.test.ts checks it), and what needs zod is loaded here, only by the
 * runs that use it: the JSON planner's reply parser and the validation of a goal tree's root input
 * (its sub-goals get theirs from their parent goal). An agent loop's input is validated on the worker,
 * by `resolveRun`.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- deliberate: loaded on first use (see above) */
export const lazy = {
  planParser: (): typeof import('./plan-parser') => require('./plan-parser'),
  goalContract: (): typeof import('../contract/goal-tree/pursue-goal') => require('../contract/goal-tree/pursue-goal'),
};
