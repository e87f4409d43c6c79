import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TimeoutFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { describeFailure, timedOut, usageOfFailedChild } from '../../../src/workflows/goal-tree/failures';

const childFailure = (cause: Error) =>
  new ChildWorkflowFailure(
    'default',
    { workflowId: 'tree/1', runId: 'r' },
    'pursueGoal',
    'NON_RETRYABLE_FAILURE',
    cause,
  );
const USAGE = { promptTokens: 100, completionTokens: 10, totalTokens: 110 };

describe('goal failures', () => {
  it('timedOut: only a child workflow that ended by its execution timeout', () => {
    expect(timedOut(childFailure(new TimeoutFailure('timed out', undefined, 'START_TO_CLOSE')))).toBe(true);
    expect(timedOut(childFailure(ApplicationFailure.create({ message: 'boom' })))).toBe(false);
    expect(timedOut(new TimeoutFailure('timed out', undefined, 'START_TO_CLOSE'))).toBe(false);
  });

  it('describeFailure: the type and message of the application failure a child or activity carries', () => {
    expect(
      describeFailure(childFailure(ApplicationFailure.create({ type: 'ModelBadRequest', message: 'Invalid schema' }))),
    ).toBe('ModelBadRequest: Invalid schema');
    const activity = new ActivityFailure(
      'activity failed',
      'assessGoal',
      '1',
      'TIMEOUT',
      'worker',
      new TimeoutFailure('activity timed out', undefined, 'START_TO_CLOSE'),
    );
    expect(describeFailure(activity)).toBe('activity timed out');
    expect(describeFailure(new Error('plain'))).toBe('plain');
    expect(describeFailure('thrown text')).toBe('thrown text');
  });

  it('usageOfFailedChild: what a failed child reported it used in its failure details, if it did', () => {
    expect(
      usageOfFailedChild(childFailure(ApplicationFailure.create({ message: 'x', details: [{ usage: USAGE }] }))),
    ).toEqual(USAGE);
    expect(usageOfFailedChild(childFailure(ApplicationFailure.create({ message: 'x' })))).toBeUndefined();
    expect(
      usageOfFailedChild(ApplicationFailure.create({ message: 'x', details: [{ usage: USAGE }] })),
    ).toBeUndefined();
  });
});
