import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Search attributes an `agentLoop` run keeps current, so the Web UI's filters and `waveloop list
 * --status waiting_for_input` find runs that need a person. They must be registered on the
 * namespace: the embedded server registers them at start, `waveloop setup` on another cluster; a
 * worker that finds them missing does not set them (a run never fails for want of them).
 */
export const WAVELOOP_STATUS = defineSearchAttributeKey('WaveloopStatus', 'KEYWORD');
export const WAVELOOP_ITERATION = defineSearchAttributeKey('WaveloopIteration', 'INT');
export const WAVELOOP_TOKENS = defineSearchAttributeKey('WaveloopTokens', 'INT');
/** The eval (`waveloop eval --name`) whose case a run is: `waveloop list --eval <name>` finds them. */
export const WAVELOOP_EVAL = defineSearchAttributeKey('WaveloopEval', 'KEYWORD');

/** The ones a run keeps current: a worker sets them when the namespace has all three. */
export const RUN_SEARCH_ATTRIBUTES = [WAVELOOP_STATUS, WAVELOOP_ITERATION, WAVELOOP_TOKENS];

export const WAVELOOP_SEARCH_ATTRIBUTES = [...RUN_SEARCH_ATTRIBUTES, WAVELOOP_EVAL];

/** `--search-attribute` flags of `temporal server start-dev` that register them. */
export const START_DEV_SEARCH_ATTRIBUTE_FLAGS = [
  'WaveloopStatus=Keyword',
  'WaveloopIteration=Int',
  'WaveloopTokens=Int',
  'WaveloopEval=Keyword',
].flatMap((spec) => ['--search-attribute', spec]);
