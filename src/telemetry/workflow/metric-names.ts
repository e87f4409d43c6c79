/**
 * waveloop's own metrics, emitted through Temporal's metric meter, so they are served beside the
 * SDK's (`temporal_*`) on the same endpoint. Temporal adds `namespace` and `taskQueue` labels, and
 * `workflowType` or `activityType` to those emitted from workflows and activities.
 */
export const Metric = {
  /** Counter · `agentLoop` runs and `pursueGoal` goals started (a run continued as new is not a new one). */
  runsStarted: { name: 'waveloop_runs_started', description: 'Agent runs and goals started' },
  /** Counter · runs and goals ended, by `status` (their result's, or `failed`). */
  runsEnded: { name: 'waveloop_runs_ended', description: 'Agent runs and goals ended, by status' },
  /** Counter · runs stopped by their circuit breaker (`circuit_open`). */
  circuitBreakersOpened: {
    name: 'waveloop_circuit_breakers_opened',
    description: 'Runs stopped by their circuit breaker',
  },
  /** Counter · approval decisions, by `outcome` (`approved`, `denied`). */
  approvalsDecided: { name: 'waveloop_approvals_decided', description: 'Tool calls approved or denied by a person' },
  /** Gauge · runs of this task queue that wait for an approval now (counted by the server's visibility). */
  runsWaitingForApproval: { name: 'waveloop_runs_waiting_for_approval', description: 'Runs waiting for an approval' },
  /** Counter · model call attempts, by `model` and `outcome` (`ok` or the failure type). */
  modelCalls: { name: 'waveloop_model_calls', description: 'Model call attempts, by model and outcome' },
  /** Histogram (ms) · how long model call attempts took, by `model` and `outcome`. */
  modelCallLatency: { name: 'waveloop_model_call_latency', unit: 'ms', description: 'Model call latency' },
  /** Counter · tokens, by `model` and `type` (`input`, `output`). */
  modelTokens: { name: 'waveloop_model_tokens', description: 'Tokens used, by model and type' },
  /** Histogram (USD) · what each model call cost, by `model`; its `_sum` is the spend. */
  modelCallCost: {
    name: 'waveloop_model_call_cost_usd',
    unit: 'USD',
    description: 'Cost of model calls in USD, by model',
  },
  /** Counter · tool call attempts, by `tool` and `outcome` (`ok` or the failure type). */
  toolCalls: { name: 'waveloop_tool_calls', description: 'Tool call attempts, by tool and outcome' },
  /** Histogram (ms) · how long tool call attempts took, by `tool` and `outcome`. */
  toolCallLatency: { name: 'waveloop_tool_call_latency', unit: 'ms', description: 'Tool call latency' },
} as const;

/** Bucket boundaries for the histograms whose values Temporal's default buckets (50 ms … 10 s) do not suit. */
export const METRIC_BUCKETS: Readonly<Record<string, number[]>> = {
  [Metric.modelCallLatency.name]: [100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000],
  [Metric.modelCallCost.name]: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
  [Metric.toolCallLatency.name]: [5, 25, 100, 250, 500, 1000, 2500, 10_000, 60_000],
};
