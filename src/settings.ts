import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { z } from 'zod';
import type { Person } from './contract/people/people';
import { envVarOf, settingNamesOf, SETTINGS } from './contract/settings/declarations';
import { RENAMED_ENV_VARS, renamedMessage } from './contract/settings/renamed';
import type { WorkerDefaults } from './contract/settings/resolve';
import { settingSchema } from './contract/settings/schemas';
import { webhookAllowEntryProblem } from './contract/webhooks/allow';
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
  /** The model endpoint: `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `WAVELOOP_STREAM`. */
  model: ModelConfig;
  /**
   * The worker's settings of its runs, below a run's and its agent's: each worker setting of
   * `src/contract/settings/declarations.ts` from its variable (`WAVELOOP_MODEL`,
   * `WAVELOOP_MAX_PARALLEL_TOOLS`, `WAVELOOP_MODEL_TIMEOUT_SECONDS`, `WAVELOOP_MODEL_ATTEMPTS`,
   * `WAVELOOP_MODEL_RPM`, `WAVELOOP_MODEL_TPM`, `WAVELOOP_WEBHOOKS`, …).
   */
  defaults: WorkerDefaults;
  /**
   * Keys that encrypt payloads at rest (`WAVELOOP_ENCRYPTION_KEY`, `WAVELOOP_ENCRYPTION_KEY_ID`,
   * `WAVELOOP_DECRYPTION_KEYS`); undefined: payloads are not encrypted.
   */
  encryption: EncryptionKeys | undefined;
  /**
   * `WAVELOOP_SHUTDOWN_GRACE_SECONDS` (default 30): how long, in seconds, a stopping
   * worker lets the calls in flight finish before it cancels them. Default 30 s.
   */
  shutdownGraceSeconds: number;
  /**
   * `WAVELOOP_DEPLOYMENT` and `WAVELOOP_BUILD_ID` (both or neither): the Worker Deployment version of
   * the workers waveloop starts (`createWorker({ deployment })`); undefined: unversioned workers.
   */
  deployment: WorkerDeployment | undefined;
  /** Webhooks (docs/webhooks.md): signed how, linking where (the URLs are `defaults.webhooks`). */
  webhooks: WebhookSettings;
  /**
   * The people of `WAVELOOP_HTTP_TOKENS` (`name:token[:group+group]`, comma-separated), their tokens
   * kept only as digests; with the project config's `people`, the people directory (docs/security.md).
   */
  people: Person[];
  /**
   * `WAVELOOP_AUDIT_URL`: the PostgreSQL database (`postgres://…`) of the audit trail; unset: the
   * SQLite file `audit.db` under the data directory (docs/audit.md).
   */
  auditUrl: string | undefined;
}

/** How the worker's webhooks are signed and where they link. */
export interface WebhookSettings {
  /** `WAVELOOP_WEBHOOK_SECRET`: signs every webhook (`X-Waveloop-Signature`); unset: unsigned. */
  secret?: string;
  /** `WAVELOOP_INBOX_URL`: where `waveloop serve` is reached, for the links `<base>/runs/<id>`; unset: no links. */
  inboxUrl?: string;
  /**
   * `WAVELOOP_WEBHOOK_ALLOW`: the hosts and URL prefixes (comma-separated; `*.domain` and `*` for
   * public addresses only) that a run's own input may name as webhooks; unset: none. The operator's
   * URLs (`WAVELOOP_WEBHOOKS`, an agent's) need no entry (docs/webhooks.md#what-a-run-may-name).
   */
  allow?: string[];
  /**
   * `WAVELOOP_AUDIT_WEBHOOKS`: http(s) URLs (comma-separated) that get a signed copy of every audit
   * record the worker writes, for a SIEM (docs/audit.md#copies-to-a-siem); unset: none.
   */
  audit?: string[];
}

/** A Worker Deployment version: the deployment's name and the id of this build of the workers' code. */
export interface WorkerDeployment {
  name: string;
  buildId: string;
}

/** The model endpoint (the model's name and limits are settings: `WaveloopSettings.defaults`). */
export interface ModelConfig {
  baseURL: string | undefined;
  apiKey: string | undefined;
  /** `WAVELOOP_STREAM`: stream replies (default), or `false` for endpoints that cannot. */
  stream: boolean;
}

export const DEFAULT_TASK_QUEUE = 'waveloop';
export const EMBEDDED_ADDRESS = '127.0.0.1:7233';
export const EMBEDDED_UI_PORT = 8233;
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = 30;

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
      stream: !['false', '0', 'off', 'no'].includes((blank(env.WAVELOOP_STREAM) ?? '').toLowerCase()),
    },
    defaults: workerDefaultsOf(env),
    encryption: encryptionKeysFromEnv(env),
    shutdownGraceSeconds:
      secondsOf('WAVELOOP_SHUTDOWN_GRACE_SECONDS', blank(env.WAVELOOP_SHUTDOWN_GRACE_SECONDS)) ??
      DEFAULT_SHUTDOWN_GRACE_SECONDS,
    deployment: deploymentOf(blank(env.WAVELOOP_DEPLOYMENT), blank(env.WAVELOOP_BUILD_ID)),
    people: peopleOfTokens(blank(env.WAVELOOP_HTTP_TOKENS) ?? ''),
    auditUrl: auditUrlOf(blank(env.WAVELOOP_AUDIT_URL)),
    webhooks: {
      ...definedOnly({
        secret: blank(env.WAVELOOP_WEBHOOK_SECRET),
        inboxUrl: inboxUrlOf(blank(env.WAVELOOP_INBOX_URL)),
        allow: webhookAllowOf(blank(env.WAVELOOP_WEBHOOK_ALLOW)),
        audit: auditWebhooksOf(blank(env.WAVELOOP_AUDIT_WEBHOOKS)),
      }),
    },
  };
}

/**
 * The worker's settings of its runs, each from its variable (`envVarOf`): a number or a word as
 * the setting takes it, a list comma-separated. A value the setting refuses is a `ZodError` naming
 * the variable; a variable that was renamed is one naming the new variable.
 */
function workerDefaultsOf(env: NodeJS.ProcessEnv): WorkerDefaults {
  const renamed = Object.keys(RENAMED_ENV_VARS).filter((name) => env[name]?.trim());
  if (renamed.length) {
    throw new z.ZodError(
      renamed.map((name) => ({
        code: 'custom',
        path: [name],
        message: renamedMessage(name, RENAMED_ENV_VARS[name]),
        input: env[name],
      })),
    );
  }
  const shape: Record<string, z.ZodType> = {};
  const given: Record<string, unknown> = {};
  for (const name of settingNamesOf('worker')) {
    const variable = envVarOf(name);
    const text = env[variable]?.trim();
    if (!text) continue;
    shape[variable] = settingSchema(name);
    given[variable] = fromText(SETTINGS[name].type.kind, text);
  }
  const parsed = z.object(shape).parse(given);
  return Object.fromEntries(
    settingNamesOf('worker')
      .filter((name) => parsed[envVarOf(name)] !== undefined)
      .map((name) => [name, parsed[envVarOf(name)]]),
  );
}

/** A variable's text as the value a setting of `kind` takes (left as text when it is not one, for the schema to refuse). */
function fromText(kind: string, text: string): unknown {
  if (kind === 'int' || kind === 'number') return text === '' || Number.isNaN(Number(text)) ? text : Number(text);
  if (kind === 'boolean')
    return ['true', '1', 'on', 'yes'].includes(text.toLowerCase())
      ? true
      : ['false', '0', 'off', 'no'].includes(text.toLowerCase())
        ? false
        : text;
  if (kind === 'names' || kind === 'webhooks')
    return text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  return text;
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

/** The entries of `WAVELOOP_WEBHOOK_ALLOW`; a `ZodError` naming the variable and the entry that is none. */
function webhookAllowOf(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return z
    .object({
      WAVELOOP_WEBHOOK_ALLOW: z.array(
        z.string().refine((entry) => webhookAllowEntryProblem(entry) === undefined, {
          error: (issue) => webhookAllowEntryProblem(String(issue.input)) ?? 'not an entry',
        }),
      ),
    })
    .parse({ WAVELOOP_WEBHOOK_ALLOW: entries }).WAVELOOP_WEBHOOK_ALLOW;
}

/** The URLs of `WAVELOOP_AUDIT_WEBHOOKS`; a `ZodError` naming the variable and the URL that is not http(s). */
function auditWebhooksOf(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const urls = value
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  return z
    .object({
      WAVELOOP_AUDIT_WEBHOOKS: z.array(
        z.url({ protocol: /^https?$/, error: (issue) => `${String(issue.input)} is not an http(s) URL` }),
      ),
    })
    .parse({ WAVELOOP_AUDIT_WEBHOOKS: urls }).WAVELOOP_AUDIT_WEBHOOKS;
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

/** A number of seconds, 0 or more; a `ZodError` naming `variable` when it is not one. */
function secondsOf(variable: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return z
    .object({
      [variable]: z.coerce.number({ error: `must be a number of seconds, such as 30, not "${value}"` }).nonnegative(),
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
 * base URL (local servers such as Ollama take any key); the model name is a setting (`model`).
 */
export function modelConfigProblem(model: ModelConfig): string | undefined {
  if (model.apiKey || model.baseURL) return undefined;
  return [
    'No model endpoint is configured. Set one of:',
    '  OPENAI_API_KEY=sk-...                                  (OpenAI; optionally WAVELOOP_MODEL=gpt-4o-mini)',
    '  OPENAI_BASE_URL=http://localhost:11434/v1 WAVELOOP_MODEL=llama3.1   (Ollama, vLLM, LM Studio, llama.cpp, Azure OpenAI: any OpenAI-compatible endpoint)',
  ].join('\n');
}

/** The shortest token `WAVELOOP_HTTP_TOKENS` takes. */
export const MIN_TOKEN_CHARS = 12;

/** The SHA-256 of a token, in hex: how the people directory keeps it. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The people of `WAVELOOP_HTTP_TOKENS`: `name:token` or `name:token:group+group`, separated by
 * commas. A token therefore holds no `:`, `,` or `+`, and has at least `MIN_TOKEN_CHARS`
 * characters. Throws a `TypeError` that names the entry that is wrong (never its token).
 */
export function peopleOfTokens(text: string): Person[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry, i) => {
      const [name = '', token = '', groups, ...rest] = entry.split(':').map((part) => part.trim());
      const where = `WAVELOOP_HTTP_TOKENS: entry ${i + 1}${name ? ` (${name})` : ''}`;
      if (!name || !token || rest.length || groups === '')
        throw new TypeError(`${where} is not name:token or name:token:group+group (a token holds no ":").`);
      if (/[\s+]/.test(name)) throw new TypeError(`${where}: a name has no spaces and no "+".`);
      if (token.includes('+')) throw new TypeError(`${where}: a token holds no "+", ":" or ",".`);
      if (token.length < MIN_TOKEN_CHARS)
        throw new TypeError(`${where}: the token is shorter than ${MIN_TOKEN_CHARS} characters.`);
      const groupList = groups === undefined ? [] : groups.split('+').map((group) => group.trim());
      if (groupList.some((group) => !group || /\s/.test(group)))
        throw new TypeError(`${where}: groups are names joined by "+", such as finance+ops.`);
      return { name, groups: groupList, tokenSha256: tokenSha256(token) };
    });
}

/** `WAVELOOP_AUDIT_URL`, a `postgres://` or `postgresql://` URL; anything else is a `TypeError` naming the variable. */
function auditUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//.test(value))
    throw new TypeError('WAVELOOP_AUDIT_URL must be a PostgreSQL URL (postgres://user:password@host:5432/db).');
  return value;
}
