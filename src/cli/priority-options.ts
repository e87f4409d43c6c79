import { Option } from 'commander';

/** `--priority`, `--fairness-key` and `--fairness-weight`, as commander parses them. */
export interface PriorityOptions {
  priority?: number;
  fairnessKey?: string;
  fairnessWeight?: number;
}

/**
 * The options that place a run's or a tree's tasks in the task queues (Temporal's Priority API);
 * `whose` names it in the help ("the run's"). The contract's schema checks the values.
 */
export function priorityOptions(whose: string): Option[] {
  return [
    new Option('--priority <n>', `${whose} priority in the task queues: 1 (first) to 5 (last; default 3)`).argParser(
      Number,
    ),
    new Option('--fairness-key <key>', 'share the task queues fairly between keys (a tenant id, ≤ 64 bytes)'),
    new Option('--fairness-weight <w>', "the fairness key's weight, 0.001 to 1000 (default 1)").argParser(Number),
  ];
}

/** The input fields the options give. */
export function priorityFields({ priority, fairnessKey, fairnessWeight }: PriorityOptions): PriorityOptions {
  return { priority, fairnessKey, fairnessWeight };
}
