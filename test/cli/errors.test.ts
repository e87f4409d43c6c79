import { ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { describeError, UsageError } from '../../src/cli/errors';
import { NoWorkerError } from '../../src/client/no-worker-error';
import { GrpcStatus } from '../../src/temporal/grpc-status';

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

  it("the client's error over the server's answer: what the client tried, and the server's why", () => {
    const answer = Object.assign(new Error('9 FAILED_PRECONDITION: …'), {
      code: GrpcStatus.FAILED_PRECONDITION,
      details: 'Unable to perform workflow execution update due to unexpected workflow task failure.',
      metadata: {},
    });
    expect(describeError(new ServiceError('Workflow Update failed', { cause: answer }))).toBe(
      'Workflow Update failed: Unable to perform workflow execution update due to unexpected workflow task failure.',
    );
  });
});
