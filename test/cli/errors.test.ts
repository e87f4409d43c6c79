import { describe, expect, it } from 'vitest';
import { describeError, UsageError } from '../../src/cli/errors';
import { NoWorkerError } from '../../src/client/no-worker-error';

describe('describeError: the one line a failed command prints', () => {
  it('a decision no worker took (as a prompt at a terminal meets it): what became of it, and how to start a worker for that task queue', () => {
    expect(describeError(new NoWorkerError('run-1', 'billing'))).toBe(
      'No worker polls task queue "billing", so run run-1 cannot take the decision now: nothing was sent, and the run waits on. ' +
        'Start one with `WAVELOOP_TASK_QUEUE=billing waveloop worker` (or `WAVELOOP_TASK_QUEUE=billing waveloop dev`).',
    );
  });

  it('a usage error: its own message', () => {
    expect(describeError(new UsageError('--deployment and --build-id go together.'))).toBe(
      '--deployment and --build-id go together.',
    );
  });
});
