export { type OtlpProtocol, type TracingOptions, tracingFromEnv } from './tracing-config';
export { telemetryWorkflowModules } from './workflow-modules';
export { metricsAddressFromEnv, prometheusTelemetry } from './metrics-runtime';
