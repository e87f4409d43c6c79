/**
 * Dynamic configuration waveloop gives the Temporal servers it starts (the embedded dev server,
 * the tests' server, docker-compose's): each key with the value agent loops need.
 *
 * Every activity completion schedules a workflow task, and the history service hands it to matching
 * through its transfer queue, which by default reads that queue at most 20 times a second per shard
 * (the dev server has one shard). A single run at full speed needs more than that: past the limit
 * each workflow task waited ~25 ms to be dispatched instead of ~2 ms, about half of every
 * iteration (measured from the event times of a run's history; scenario 1 of `npm run bench`). The
 * visibility queue (search-attribute updates, runs starting and closing) has the same limit and is
 * what many runs at once wait on. Those values only lift read-rate limits.
 *
 * `matching.enableFairness` turns on task-queue fairness (it implies `matching.useNewMatcher`, the
 * matcher that honours priorities): runs with different fairness keys
 * share a task queue's backlog by their weights (docs/flow-control.md). Off, the keys are carried
 * and ignored. A cluster you run yourself takes the same keys (docs/docker-compose.md).
 *
 * One partition per task queue (`matching.numTaskqueue{Read,Write}Partitions`, 4 by default): the
 * server holds a task queue's rate limit (`WAVELOOP_MODEL_RPM`) and orders its priorities and
 * fairness keys per partition, splitting the rate between them, so with 4 the model calls of a
 * rate-limited queue started in clumps of up to 4 (each partition's first at once) and priorities
 * were only nearly kept. One server process with one shard gains nothing from more partitions.
 */
export const SERVER_DYNAMIC_CONFIG: Readonly<Record<string, number | boolean>> = {
  'history.transferProcessorMaxPollRPS': 1_000,
  'history.visibilityProcessorMaxPollRPS': 1_000,
  'matching.enableFairness': true,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

/** `--dynamic-config-value` flags of `temporal server start-dev` that set `config` (values as YAML: strings quoted). */
export function dynamicConfigFlags(config: Readonly<Record<string, string | number | boolean>>): string[] {
  return Object.entries(config).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

/** The flags that set waveloop's own dynamic configuration. */
export const START_DEV_DYNAMIC_CONFIG_FLAGS = dynamicConfigFlags(SERVER_DYNAMIC_CONFIG);
