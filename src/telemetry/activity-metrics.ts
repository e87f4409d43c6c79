import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import {
  MODEL_CALL_ACTIVITIES,
  modelCallInput,
  modelCallOutput,
  TOOL_CALL_ACTIVITY,
  toolCallInput,
} from '../contract/model/activities';
import { costOf, priceOf, type ModelPrice } from '../contract/model/pricing';
import { Metric } from './workflow/metric-names';

/**
 * The activity interceptor of waveloop's model and tool metrics: every attempt of a model call
 * (`waveloop_model_calls`, its latency, its tokens and cost by model) and of a tool call
 * (`waveloop_tool_calls` and latency by tool), with its outcome: `ok`, or the failure's type
 * (`ModelRateLimit`, `ToolError`, …). Emitted through the activity's metric meter, which Temporal
 * labels with the activity type, namespace and task queue. `modelPrices` price the tokens as
 * `createWorker({ modelPrices })` does for cost limits.
 */
export function activityMetrics(modelPrices?: Readonly<Record<string, ModelPrice>>): ActivityInterceptorsFactory {
  return (ctx) => ({ inbound: new ActivityMetrics(ctx, modelPrices) });
}

class ActivityMetrics implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: Context,
    private readonly modelPrices: Readonly<Record<string, ModelPrice>> | undefined,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.ctx.info.activityType;
    const record = MODEL_CALL_ACTIVITIES.has(type)
      ? this.modelCall(input.args)
      : type === TOOL_CALL_ACTIVITY
        ? this.toolCall(input.args)
        : undefined;
    if (!record) return next(input);
    const started = Date.now();
    let output: unknown;
    try {
      output = await next(input);
    } catch (err) {
      record(outcomeOf(err), Date.now() - started, undefined);
      throw err;
    }
    record('ok', Date.now() - started, output);
    return output;
  }

  private modelCall(args: unknown[]) {
    const model = modelCallInput(args).model ?? 'unknown';
    const meter = this.ctx.metricMeter;
    return (outcome: string, ms: number, output: unknown) => {
      meter.createCounter(Metric.modelCalls.name, undefined, Metric.modelCalls.description).add(1, { model, outcome });
      meter
        .createHistogram(
          Metric.modelCallLatency.name,
          'int',
          Metric.modelCallLatency.unit,
          Metric.modelCallLatency.description,
        )
        .record(ms, { model, outcome });
      const { usage } = modelCallOutput(output);
      if (!usage) return;
      const tokens = meter.createCounter(Metric.modelTokens.name, undefined, Metric.modelTokens.description);
      tokens.add(usage.promptTokens, { model, type: 'input' });
      tokens.add(usage.completionTokens, { model, type: 'output' });
      const price = priceOf(model, this.modelPrices);
      if (!price) return; // unknown models have no cost series rather than a cost of 0
      meter
        .createHistogram(
          Metric.modelCallCost.name,
          'float',
          Metric.modelCallCost.unit,
          Metric.modelCallCost.description,
        )
        .record(costOf(usage, price), { model });
    };
  }

  private toolCall(args: unknown[]) {
    const tool = toolCallInput(args).name;
    const meter = this.ctx.metricMeter;
    return (outcome: string, ms: number) => {
      meter.createCounter(Metric.toolCalls.name, undefined, Metric.toolCalls.description).add(1, { tool, outcome });
      meter
        .createHistogram(
          Metric.toolCallLatency.name,
          'int',
          Metric.toolCallLatency.unit,
          Metric.toolCallLatency.description,
        )
        .record(ms, { tool, outcome });
    };
  }
}

/** A failed attempt's outcome: its failure type, `cancelled`, or the error's name. */
function outcomeOf(err: unknown): string {
  if (err instanceof ApplicationFailure && err.type) return err.type;
  if (err instanceof Error && (err.name === 'CancelledFailure' || err.name === 'AbortError')) return 'cancelled';
  return err instanceof Error ? err.name : 'Error';
}
