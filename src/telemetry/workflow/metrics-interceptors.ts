import { ContinueAsNew, isCancellation, metricMeter, workflowInfo } from '@temporalio/workflow';
import type {
  Next,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
} from '@temporalio/workflow';
import { approveUpdate, denyUpdate } from '../../contract/messages';
import { Metric } from './metric-names';
import { isRunWorkflow } from './run-workflows';

/**
 * The workflow interceptor of waveloop's run metrics, a module of the workflow bundle when metrics
 * are on (`telemetryWorkflowModules`): runs and goals started and ended (by status), circuit
 * breakers opened, approval decisions. Emitted through the workflow's `metricMeter`, which
 * records nothing while replaying: a worker that takes a run over counts only what happens from
 * then on. Temporal labels them with the workflow type, namespace and task queue. Like tracing's,
 * these interceptors hand on the promise they got and watch it from the side: nothing is awaited
 * between it and the workflow, so metrics can be turned on or off with runs in flight.
 */
export const interceptors = (): WorkflowInterceptors => ({ inbound: [new RunMetrics()] });

class RunMetrics implements WorkflowInboundCallsInterceptor {
  private readonly started = metricMeter.createCounter(
    Metric.runsStarted.name,
    undefined,
    Metric.runsStarted.description,
  );
  private readonly ended = metricMeter.createCounter(Metric.runsEnded.name, undefined, Metric.runsEnded.description);
  private readonly breakers = metricMeter.createCounter(
    Metric.circuitBreakersOpened.name,
    undefined,
    Metric.circuitBreakersOpened.description,
  );
  private readonly decided = metricMeter.createCounter(
    Metric.approvalsDecided.name,
    undefined,
    Metric.approvalsDecided.description,
  );

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    // An eval or a webhook's delivery is no run. A run continued as new goes on with the same run.
    if (!isRunWorkflow(workflowInfo().workflowType)) return next(input);
    if (!workflowInfo().continuedFromExecutionRunId) this.started.add(1);
    const running = next(input);
    void running.then(
      (result) => {
        const status = (result as { status?: unknown } | undefined)?.status;
        this.ended.add(1, { status: typeof status === 'string' ? status : 'unknown' });
        if (status === 'circuit_open') this.breakers.add(1);
      },
      (err: unknown) => {
        if (!(err instanceof ContinueAsNew))
          this.ended.add(1, { status: isCancellation(err) ? 'cancelled' : 'failed' });
      },
    );
    return running;
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const handled = next(input);
    const outcome =
      input.name === approveUpdate.name ? 'approved' : input.name === denyUpdate.name ? 'denied' : undefined;
    if (outcome) {
      void handled.then(
        () => this.decided.add(1, { outcome }),
        () => undefined,
      );
    }
    return handled;
  }
}
