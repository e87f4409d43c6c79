import { describe, expect, it } from 'vitest';
import { listedStatus } from '../../src/client/run-list';

describe('listedStatus', () => {
  it.each([
    // Still going: the run's own status.
    ['running', 'RUNNING', 'running'],
    ['waiting_for_approval', 'RUNNING', 'waiting_for_approval'],
    // Ended on its own: its own status, whatever Temporal says.
    ['completed', 'COMPLETED', 'completed'],
    ['cancelled', 'COMPLETED', 'cancelled'],
    ['max_iterations', 'FAILED', 'max_iterations'],
    // Closed by Temporal before it ended on its own: how Temporal closed it.
    ['running', 'FAILED', 'failed'],
    ['waiting_for_approval', 'TERMINATED', 'terminated'],
    ['waiting_for_input', 'TIMED_OUT', 'timed_out'],
    ['waiting_for_message', 'CANCELLED', 'cancelled'],
    [undefined, 'FAILED', 'failed'],
    // Handed over: the chain goes on, the own status stays.
    ['waiting_for_approval', 'CONTINUED_AS_NEW', 'waiting_for_approval'],
    // Without an own status (a goal tree's root): Temporal's, in lower case.
    [undefined, 'COMPLETED', 'completed'],
    [undefined, 'RUNNING', 'running'],
    [undefined, 'CONTINUED_AS_NEW', 'continued_as_new'],
  ])('own %s, Temporal %s: listed %s', (own, execution, listed) => {
    expect(listedStatus(own, execution)).toBe(listed);
  });
});
