import type OpenAI from 'openai';
import type { Score, ScoreCaseInput, ScoreCaseOutput } from '../../contract/eval/eval';
import type { ScoredRun, ScorerDefinition } from '../../contract/eval/scorer';
import { costOf, priceOf, type ModelPrice } from '../../contract/model/pricing';
import { withHeartbeats } from '../heartbeat';
import type { EndpointQuirks } from '../model/endpoint-quirks';
import type { Registry } from '../registry';
import { judge } from './judge';
import { builtinScores } from './scorers';

/**
 * The scoring of an eval's case (`scoreEvalCase`): the built-in scorers the case names (and
 * `status`), the model judge, and every custom scorer of the project (`scorers`), plus what the run
 * cost at its model's price. A custom scorer that throws or returns something else fails the case
 * with what went wrong; it does not fail the eval.
 */
export function createScoreEvalCase(deps: {
  registry: Registry;
  openai: OpenAI;
  defaultModel: string;
  scorers?: readonly ScorerDefinition[];
  modelPrices?: Readonly<Record<string, ModelPrice>>;
  quirks: EndpointQuirks;
}) {
  return (input: ScoreCaseInput): Promise<ScoreCaseOutput> => withHeartbeats(() => score(input));

  async function score(input: ScoreCaseInput): Promise<ScoreCaseOutput> {
    const run: ScoredRun = {
      case: input.case,
      workflowId: input.workflowId,
      ...(input.result ? { result: input.result } : {}),
      ...(input.failure ? { failure: input.failure } : {}),
    };
    const agentModel = input.agent ? deps.registry.agents.get(input.agent)?.model : undefined;
    const model = input.model ?? agentModel ?? deps.defaultModel;
    const scores = builtinScores(run);
    const criteria = input.case.expect?.judge;
    if (criteria)
      scores.judge = input.replay
        ? { pass: true, detail: 'not judged: the model replies were replayed' }
        : await judge(run, criteria, { openai: deps.openai, model, quirks: deps.quirks });
    for (const scorer of deps.scorers ?? []) scores[scorer.name] = await custom(scorer, run);
    const usage = input.result?.usage;
    return { scores, costUsd: usage ? costOf(usage, priceOf(model, deps.modelPrices)) : 0 };
  }
}

async function custom(scorer: ScorerDefinition, run: ScoredRun): Promise<Score> {
  try {
    const score = await scorer.score(run, run.case.expect?.[scorer.name]);
    if (typeof score === 'boolean') return { pass: score };
    if (typeof score?.pass === 'boolean')
      return { pass: score.pass, ...(score.detail ? { detail: score.detail } : {}) };
    return { pass: false, detail: `the scorer returned ${JSON.stringify(score)}, not a boolean or { pass }` };
  } catch (err) {
    return { pass: false, detail: `the scorer threw: ${err instanceof Error ? err.message : String(err)}` };
  }
}
