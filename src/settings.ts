import * as path from 'node:path';
import { z } from 'zod';
import { durationMs } from './contract/settings/duration';
import { WebhookUrlSchema } from './contract/webhooks/url';
import { encryptionKeysFromEnv, type EncryptionKeys } from './payloads/encryption-keys';

/**
 * Everything waveloop reads from the environment, in one place. Worker, client and CLI call
 * `loadSettings()`; workflow code never does (it gets what it needs through its input and activities).
 * A malformed encryption key fails here (a `ZodError` that names the variable, never the key).
 */
export interface WaveloopSettings {
  /** Where the embedded server's SQLite file, the demo database and logs live (`WAVELOOP_DATA_DIR`). */
  dataDir: string;
  /** Task queue of workers and runs (`WAVELOOP_TASK_QUEUE`, default `waveloop`). */
  taskQueue: string;
  /** `TEMPORAL_ADDRESS`; unset means the embedded dev server (`embeddedServer`). */
  temporalAddress: string | undefined;
  /**
   * The embedded dev server's gRPC address, 127.0.0.1:7233, and Web UI port, 8233; with
   * `WAVELOOP_SERVER_PORT=<port>`, 127.0.0.1:<port> and <port + 1000>.
   */
  embeddedServer: { address: string; uiPort: number };
  /** `TEMPORAL_NAMESPACE`, default `default`. */
  namespace: string;
  /** `TEMPORAL_API_KEY` (Temporal Cloud); implies TLS. */
  apiKey: string | undefined;
  /** `TEMPORAL_TLS_CERT` / `TEMPORAL_TLS_KEY`: paths of a client certificate for mTLS (both or neither). */
  tlsCertPath: string | undefined;
  tlsKeyPath: string | undefined;
  /** `TEMPORAL_TLS=true` forces TLS without a client certificate. */
  tls: boolean;
  /** `TEMPORAL_TLS_CA`: the path of the CA certificate that signed the server's (a private CA); implies TLS. */
  tlsCaPath: string | undefined;
  /** `TEMPORAL_TLS_SERVER_NAME`: the name the server's certificate is checked against, when not the address's host; implies TLS. */
  tlsServerName: string | undefined;
  /** The model endpoint: `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `WAVELOOP_MODEL`. */
  model: ModelConfig;
  /**
   * Keys that encrypt payloads at rest (`WAVELOOP_ENCRYPTION_KEY`, `WAVELOOP_ENCRYPTION_KEY_ID`,
   * `WAVELOOP_DECRYPTION_KEYS`); undefined: payloads are not encrypted.
   */
  encryption: EncryptionKeys | undefined;
  /**
   * `WAVELOOP_SHUTDOWN_GRACE` (e.g. `30s`, `2m`; a bare number is seconds): how long a stopping
   * worker lets the calls in flight finish before it cancels them. Default 30 s.
   */
  shutdownGraceMs: number;
  /**
   * `WAVELOOP_DEPLOYMENT` and `WAVELOOP_BUILD_ID` (both or neither): the Worker Deployment version of
   * the workers waveloop starts (`createWorker({ deployment })`); undefined: unversioned workers.
   */
  deployment: WorkerDeployment | undefined;
  /**
   * `WAVELOOP_MAX_PARALLEL_TOOLS`: how many tool calls of one wave run at once when neither the run
   * nor its agent says (`maxParallelTools`; default 16).
   */
  maxParallelTools?: number;
  /** Webhooks (docs/webhooks.md): what a worker's runs tell, signed how, linking where. */
  webhooks: WebhookSettings;
}

/** The worker's webhooks. */
export interface WebhookSettings {
  /** `WAVELOOP_WEBHOOK_URL`: URLs, comma-separated, that every run tells (besides its agent's and its own). */
  urls: string[];
  /** `WAVELOOP_WEBHOOK_SECRET`: signs every webhook (`X-Waveloop-Signature`); unset: unsigned. */
  secret?: string;
  /** `WAVELOOP_INBOX_URL`: where `waveloop serve` is reached, for the links `<base>/runs/<id>`; unset: no links. */
  inboxUrl?: string;
}

/** A Worker Deployment version: the deployment's name and the id of this build of the workers' code. */
export interface WorkerDeployment {
  name: string;
  buildId: string;
}

export interface ModelConfig {
  baseURL: string | undefined;
  apiKey: string | undefined;
  model: string | undefined;
  /** `WAVELOOP_STREAM`: stream replies (default), or `false` for endpoints that cannot. */
  stream: boolean;
  /** `WAVELOOP_MODEL_TIMEOUT` (e.g. `20m`): how long one attempt of a model call may take (default 10 minutes). */
  timeoutMs?: number;
  /** `WAVELOOP_MODEL_ATTEMPTS`: attempts of a model call before the run fails (default 8). */
  attempts?: number;
  /**
   * `WAVELOOP_MODEL_RPM`: the most model calls a minute of the task queue's runs, held by the
   * Temporal server across every worker (docs/flow-control.md). Default: none.
   */
  requestsPerMinute?: number;
  /**
   * `WAVELOOP_MODEL_TPM`: the most tokens a minute each worker's model calls may spend, on top of
   * what the endpoint's rate-limit headers say (docs/flow-control.md). Default: none.
   */
  tokensPerMinute?: number;
}

export const DEFAULT_TASK_QUEUE = 'waveloop';
export const EMBEDDED_ADDRESS = '127.0.0.1:7233';
export const EMBEDDED_UI_PORT = 8233;
export const DEFAULT_MODEL = 'gpt-4o-mini';
export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;

export function loadSettings(env: NodeJS.ProcessEnv = process.env): WaveloopSettings {
  const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
  return {
    dataDir: path.resolve(blank(env.WAVELOOP_DATA_DIR) ?? '.waveloop'),
    taskQueue: blank(env.WAVELOOP_TASK_QUEUE) ?? DEFAULT_TASK_QUEUE,
    temporalAddress: blank(env.TEMPORAL_ADDRESS),
    embeddedServer: embeddedServerOf(blank(env.WAVELOOP_SERVER_PORT)),
    namespace: blank(env.TEMPORAL_NAMESPACE) ?? 'default',
    apiKey: blank(env.TEMPORAL_API_KEY),
    ...clientCertificateOf(blank(env.TEMPORAL_TLS_CERT), blank(env.TEMPORAL_TLS_KEY)),
    tls: blank(env.TEMPORAL_TLS) === 'true',
    tlsCaPath: blank(env.TEMPORAL_TLS_CA),
    tlsServerName: blank(env.TEMPORAL_TLS_SERVER_NAME),
    model: {
      baseURL: blank(env.OPENAI_BASE_URL),
      apiKey: blank(env.OPENAI_API_KEY),
      model: blank(env.WAVELOOP_MODEL),
      stream: !['false', '0', 'off', 'no'].includes((blank(env.WAVELOOP_STREAM) ?? '').toLowerCase()),
      ...definedOnly({
        timeoutMs: durationOf('WAVELOOP_MODEL_TIMEOUT', blank(env.WAVELOOP_MODEL_TIMEOUT)),
        attempts: countOf('WAVELOOP_MODEL_ATTEMPTS', blank(env.WAVELOOP_MODEL_ATTEMPTS)),
        requestsPerMinute: rateOf('WAVELOOP_MODEL_RPM', 'model calls a minute', blank(env.WAVELOOP_MODEL_RPM)),
        tokensPerMinute: rateOf('WAVELOOP_MODEL_TPM', 'tokens a minute', blank(env.WAVELOOP_MODEL_TPM)),
      }),
    },
    encryption: encryptionKeysFromEnv(env),
    shutdownGraceMs:
      durationOf('WAVELOOP_SHUTDOWN_GRACE', blank(env.WAVELOOP_SHUTDOWN_GRACE)) ?? DEFAULT_SHUTDOWN_GRACE_MS,
    deployment: deploymentOf(blank(env.WAVELOOP_DEPLOYMENT), blank(env.WAVELOOP_BUILD_ID)),
    ...definedOnly({
      maxParallelTools: countOf('WAVELOOP_MAX_PARALLEL_TOOLS', blank(env.WAVELOOP_MAX_PARALLEL_TOOLS), 1_000),
    }),
    webhooks: {
      urls: webhookUrlsOf(blank(env.WAVELOOP_WEBHOOK_URL)),
      ...definedOnly({
        secret: blank(env.WAVELOOP_WEBHOOK_SECRET),
        inboxUrl: inboxUrlOf(blank(env.WAVELOOP_INBOX_URL)),
      }),
    },
  };
}

/** The URLs of `WAVELOOP_WEBHOOK_URL`, comma-separated; a `ZodError` naming the variable and the URL when one is not an http(s) URL. */
function webhookUrlsOf(value: string | undefined): string[] {
  if (value === undefined) return [];
  const urls = value
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  return z.object({ WAVELOOP_WEBHOOK_URL: z.array(WebhookUrlSchema) }).parse({ WAVELOOP_WEBHOOK_URL: urls })
    .WAVELOOP_WEBHOOK_URL;
}

/** `WAVELOOP_INBOX_URL`, an http(s) URL; a `ZodError` naming the variable when it is not. */
function inboxUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return z
    .object({
      WAVELOOP_INBOX_URL: z.url({
        protocol: /^https?$/,
        error: `must be the http(s) URL where waveloop serve is reached, such as http://127.0.0.1:8080, not "${value}"`,
      }),
    })
    .parse({ WAVELOOP_INBOX_URL: value }).WAVELOOP_INBOX_URL;
}

/** The deployment version of `WAVELOOP_DEPLOYMENT` and `WAVELOOP_BUILD_ID`; a `ZodError` naming the one missing when only one is set. */
function deploymentOf(name: string | undefined, buildId: string | undefined): WorkerDeployment | undefined {
  if (name === undefined && buildId === undefined) return undefined;
  const parsed = z
    .object({
      WAVELOOP_DEPLOYMENT: z.string({ error: 'must be set with WAVELOOP_BUILD_ID (set both or neither)' }),
      WAVELOOP_BUILD_ID: z.string({ error: 'must be set with WAVELOOP_DEPLOYMENT (set both or neither)' }),
    })
    .parse({ WAVELOOP_DEPLOYMENT: name, WAVELOOP_BUILD_ID: buildId });
  return { name: parsed.WAVELOOP_DEPLOYMENT, buildId: parsed.WAVELOOP_BUILD_ID };
}

/**
 * The client certificate of `TEMPORAL_TLS_CERT` and `TEMPORAL_TLS_KEY`; a `ZodError` naming the one
 * missing when only one is set (a certificate without its key would otherwise be ignored in silence).
 */
function clientCertificateOf(
  cert: string | undefined,
  key: string | undefined,
): Pick<WaveloopSettings, 'tlsCertPath' | 'tlsKeyPath'> {
  if (cert === undefined && key === undefined) return { tlsCertPath: undefined, tlsKeyPath: undefined };
  const parsed = z
    .object({
      TEMPORAL_TLS_CERT: z.string({ error: 'must be set with TEMPORAL_TLS_KEY (set both or neither)' }),
      TEMPORAL_TLS_KEY: z.string({ error: 'must be set with TEMPORAL_TLS_CERT (set both or neither)' }),
    })
    .parse({ TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key });
  return { tlsCertPath: parsed.TEMPORAL_TLS_CERT, tlsKeyPath: parsed.TEMPORAL_TLS_KEY };
}

/** Milliseconds in a duration such as `90s`, `2m` or `500ms` (a bare number is seconds); a `ZodError` naming `variable` when malformed. */
function durationOf(variable: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return z
    .object({ [variable]: z.number({ error: `must be a duration such as 30s or 2m, not "${value}"` }).nonnegative() })
    .parse({ [variable]: durationMs(value) })[variable];
}

/** A whole number from 1 to `max` (`ZodError` naming `variable` when it is not). */
function countOf(variable: string, value: string | undefined, max = 100): number | undefined {
  if (value === undefined) return undefined;
  return z
    .object({
      [variable]: z.coerce
        .number({ error: `must be a whole number, not "${value}"` })
        .int()
        .min(1)
        .max(max),
    })
    .parse({ [variable]: value })[variable];
}

/** A positive rate such as `120` (`ZodError` naming `variable` and what it counts when it is not). */
function rateOf(variable: string, what: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return z
    .object({
      [variable]: z.coerce
        .number({ error: `must be a positive number of ${what}, not "${value}"` })
        .positive(`must be a positive number of ${what}, not "${value}"`)
        .max(1e9, `must be at most 1,000,000,000 ${what}`),
    })
    .parse({ [variable]: value })[variable];
}

function definedOnly<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function embeddedServerOf(port: string | undefined): WaveloopSettings['embeddedServer'] {
  if (port === undefined) return { address: EMBEDDED_ADDRESS, uiPort: EMBEDDED_UI_PORT };
  // The Web UI listens 1000 above it, so the port leaves room for that.
  const n = z
    .object({ WAVELOOP_SERVER_PORT: z.coerce.number().int().min(1).max(64_535) })
    .parse({ WAVELOOP_SERVER_PORT: port }).WAVELOOP_SERVER_PORT;
  return { address: `127.0.0.1:${n}`, uiPort: n + 1000 };
}

/**
 * Why the model endpoint cannot be used, or undefined when it can. A run needs an API key or a
 * base URL (local servers such as Ollama take any key); the model name defaults to gpt-4o-mini.
 */
export function modelConfigProblem(model: ModelConfig): string | undefined {
  if (model.apiKey || model.baseURL) return undefined;
  return [
    'No model endpoint is configured. Set one of:',
    '  OPENAI_API_KEY=sk-...                                  (OpenAI; optionally WAVELOOP_MODEL=gpt-4o-mini)',
    '  OPENAI_BASE_URL=http://localhost:11434/v1 WAVELOOP_MODEL=llama3.1   (Ollama, vLLM, LM Studio, llama.cpp, Azure OpenAI: any OpenAI-compatible endpoint)',
  ].join('\n');
}
