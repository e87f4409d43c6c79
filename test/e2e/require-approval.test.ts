import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backOfficeAgent } from '../../src/demo/agents';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';

/**
 * `toolsToApprove` that names a tool the run does not offer: the run is refused before its first
 * model call (InvalidInput, naming the tool), rather than running with an approval that could never
 * be asked for.
 */
const { EventType } = temporal.api.enums.v1;
let cli: CliFixture;
beforeAll(async () => {
  cli = await cliFixture('require-approval');
});
afterAll(() => cli?.stop());

/** Starts a run through the library client and returns its failure (or throws when it did not fail). */
async function failureOf(input: Parameters<CliFixture['client']['runs']['start']>[0]) {
  const handle = await cli.client.runs.start(input);
  const error = await cli.client.runs.result(handle.workflowId).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return { workflowId: handle.workflowId, cause: cause as ApplicationFailure };
}

/** The event types of the run's history, by name. */
async function eventTypes(workflowId: string): Promise<string[]> {
  const history = await cli.client.runs.handle(workflowId).fetchHistory();
  return (history.events ?? []).map((event) => EventType[event.eventType!]);
}

describe('toolsToApprove', () => {
  it('toolsToApprove: naming tools the run does not offer fails the run with InvalidInput naming them; no model call, no tool call', async () => {
    cli.fake.script();
    const { workflowId, cause } = await failureOf({
      goal: 'Move user 3 to Globex',
      tools: ['calculator', 'get_user'],
      toolsToApprove: ['get_user', 'update_user', 'rm_rf'],
    });

    expect(cause.type).toBe('InvalidInput');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toBe('toolsToApprove names tools the run does not have: "update_user", "rm_rf".');
    expect(cli.fake.requests).toEqual([]);
    const events = await eventTypes(workflowId);
    expect(events).not.toContain('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    expect(events.at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
  });

  it("toolsToApprove: a registered tool outside the agent's own tool list counts as not offered", async () => {
    cli.fake.script();
    const offered = new Set(backOfficeAgent.tools);
    const outside = cli.h.demoTools().find((tool) => !offered.has(tool.name))!.name;
    const { cause } = await failureOf({ goal: 'Look Bob up', agent: 'back-office', toolsToApprove: [outside] });

    expect(cause.type).toBe('InvalidInput');
    expect(cause.message).toBe(`toolsToApprove names tools the run does not have: "${outside}".`);
    expect(cli.fake.requests).toEqual([]);
  });

  it('waveloop status: a run refused for its toolsToApprove shows as failed, with the reason', async () => {
    cli.fake.script();
    const { workflowId } = await failureOf({
      goal: 'Compute',
      tools: ['calculator'],
      toolsToApprove: ['update_user'],
    });

    const status = await waveloop(['status', workflowId], cli.env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('Status:     failed\n');
    expect(status.stdout).toContain(
      'Failure:    InvalidInput: toolsToApprove names tools the run does not have: "update_user".\n',
    );
  });
});
