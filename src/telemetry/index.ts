export type { OtlpProtocol, TracingOptions } from './tracing-config';
export { telemetryWorkflowModules } from './workflow-modules';
export { prometheusTelemetry } from './metrics-runtime';
