import { executeChild, isCancellation, proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { SCORE_CASE_ACTIVITY_OPTIONS } from '../contract/activity-options';
import { DRY_RUN_MEMO, type HeldBackCall } from '../contract/effects/dry-run';
import {
  DEFAULT_EVAL_CONCURRENCY,
  summarizeCases,
  type EvalCase,
  type EvalCaseReport,
  type EvalInput,
  type EvalReport,
  type EvalRunResult,
} from '../contract/eval/eval';
import { workflowSummary } from '../contract/goal-tree/text';
import { WAVELOOP_EVAL } from '../contract/search-attributes';
import { agentLoop } from './agent-loop';
import { describeFailure, usageOfFailedChild } from './goal-tree/failures';

type Activities = ReturnType<typeof createActivities>;

const { scoreEvalCase } = proxyActivities<Activities>(SCORE_CASE_ACTIVITY_OPTIONS);

/**
 * An eval: runs every case of a dataset as an `agentLoop` child (`<eval id>-<case number>`, tagged
 * `WaveloopEval=<name>`), at most `concurrency` at once, scores each as it ends (`scoreEvalCase`, an
 * activity: custom scorers and the judge call out), and returns the report. Durable as any
 * workflow: a worker or server that dies half-way loses nothing, and a case that ended is never run
 * again (its result is in this history). A case's run that fails is a failed case, not a failed eval.
 * With `dryRun`, every case runs as a dry run, and each case's report lists the calls it held back.
 */
export async function evalRun(input: EvalInput): Promise<EvalReport> {
  const { workflowId } = workflowInfo();
  const reports: EvalCaseReport[] = new Array(input.cases.length);
  let ended = 0;
  const show = () => setCurrentDetails(`**Eval \`${input.name}\`**: ${ended} of ${input.cases.length} cases ended.`);
  show();

  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < input.cases.length) {
      const index = next++;
      reports[index] = await runCase(input, input.cases[index], `${workflowId}-${index + 1}`);
      ended += 1;
      show();
    }
  };
  const lanes = Math.max(1, Math.min(input.concurrency ?? DEFAULT_EVAL_CONCURRENCY, input.cases.length));
  await Promise.all(Array.from({ length: lanes }, lane));

  return {
    name: input.name,
    workflowId,
    ...(input.replayOf ? { replayOf: input.replayOf } : {}),
    ...(input.dryRun ? { dryRun: true } : {}),
    cases: reports,
    summary: summarizeCases(reports),
  };
}

/** Runs one case as a child run and scores it. */
async function runCase(input: EvalInput, c: EvalCase, workflowId: string): Promise<EvalCaseReport> {
  const agent = c.agent ?? input.agent;
  const began = Date.now();
  let result: EvalRunResult | undefined;
  let failure: string | undefined;
  let tokens = 0;
  let heldBack: HeldBackCall[] | undefined;
  try {
    const dry = input.dryRun ? 'DRY RUN · ' : '';
    const run = await executeChild(agentLoop, {
      workflowId,
      args: [
        {
          goal: c.goal,
          ...(agent ? { agent } : {}),
          ...(input.model ? { model: input.model } : {}),
          ...(input.dryRun ? { dryRun: true } : {}),
        },
      ],
      staticSummary: workflowSummary(`${dry}eval ${input.name} · ${c.goal}`),
      typedSearchAttributes: [{ key: WAVELOOP_EVAL, value: input.name }],
      ...(input.dryRun ? { memo: { [DRY_RUN_MEMO]: true } } : {}),
    });
    const { status, answer, iterations, waves, usage, output } = run;
    result = { status, answer, iterations, waves, usage, ...(output === undefined ? {} : { output }) };
    heldBack = run.heldBack;
    tokens = usage.totalTokens;
  } catch (err) {
    if (isCancellation(err)) throw err;
    failure = describeFailure(err);
    tokens = usageOfFailedChild(err)?.totalTokens ?? 0;
  }
  const ms = Date.now() - began;
  const { scores, costUsd } = await scoreEvalCase({
    case: c,
    workflowId,
    ...(result ? { result } : { failure }),
    ...(input.model ? { model: input.model } : {}),
    ...(agent ? { agent } : {}),
    ...(input.replayOf ? { replay: true } : {}),
  });
  return {
    goal: c.goal,
    ...(agent ? { agent } : {}),
    ...(c.tags ? { tags: c.tags } : {}),
    passed: Object.values(scores).every((s) => s.pass),
    scores,
    workflowId,
    status: result?.status ?? 'failed',
    ...(result ? { answer: result.answer } : {}),
    iterations: result?.iterations ?? 0,
    tokens,
    costUsd,
    ms,
    ...(heldBack ? { heldBack } : {}),
  };
}
