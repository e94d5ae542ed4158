import { availableParallelism } from 'node:os';
import { config as loadDotenv } from 'dotenv';
import { ReceiptsSetting, SECRET_PLACEHOLDER, SETTINGS, SettingSpec } from './config.schema';
import { parseSigningKeys, SigningKeys } from './signing-keys';

export const APP_CONFIG = Symbol('APP_CONFIG');

export interface AppConfig {
  databaseUrl: string | null;
  dataDir: string;
  databasePoolSize: number;
  databaseStatementTimeoutMs: number;
  databaseIdleInTransactionTimeoutMs: number;
  databaseQueryTimeoutMs: number;
  databaseKeepaliveIdleMs: number;
  readReplicaUrls: string[];
  readReplicaMaxLagMs: number;
  readYourWritesWindowMs: number;
  autoMigrate: boolean;
  host: string;
  port: number;
  debug: boolean;
  logLevel: string;
  compilerType: 'heuristic' | 'llm';
  embeddingProvider: 'stub' | 'none' | 'openai';
  embeddingDimensions: number;
  openaiApiKey: string;
  openaiBaseUrl: string;
  /** Where embeddings and chat go; each falls back to OPENAI_BASE_URL / OPENAI_API_KEY. */
  embeddingBaseUrl: string;
  embeddingApiKey: string;
  llmBaseUrl: string;
  llmApiKey: string;
  openaiEmbeddingModel: string;
  llmCompilerModel: string;
  llmResponseFormat: 'json_schema' | 'json_object' | 'none';
  llmFallbackToHeuristic: boolean;
  llmMaxEpisodesPerCompile: number;
  llmChunkTokens: number;
  llmMaxOutputTokens: number;
  llmTimeoutMs: number;
  llmMaxRetries: number;
  llmConcurrency: number;
  embeddingBatchSize: number;
  embeddingTimeoutMs: number;
  embeddingSendDimensions: 'auto' | 'true' | 'false';
  embeddingBackfillIntervalMinutes: number;
  defaultMaxContextTokens: number;
  apiKey: string;
  rateLimitRpm: number;
  rateLimitStrategy: 'distributed' | 'memory';
  trustedProxies: string;
  webhookUrl: string;
  webhookTimeoutMs: number;
  /** HEALTH_REFRESH_DELAY_MS: how long ingestion marks gather before a health recomputation. */
  healthRefreshDelayMs: number;
  webhookMaxAttempts: number;
  webhookRetentionDays: number;
  webhookDeadLetterRetentionDays: number;
  webhookSecret: string;
  compileJobRetentionHours: number;
  compileJobMaxAttempts: number;
  corsOrigins: string[];
  requireTenant: boolean;
  tenantHeader: string;
  enableSnapshots: boolean;
  consoleEnabled: boolean;
  strictSchema: boolean;
  maxBodyBytes: number;
  maxImportBytes: number;
  readPageBytes: number;
  socketIdleTimeoutMs: number;
  ingestGroupCommit: boolean;
  /** HTTP worker processes (SERVICE_WORKERS, `auto` resolved); 1: no cluster, this process serves. */
  workers: number;
  workersEnabled: boolean;
  workerPollMs: number;
  otelEndpoint: string;
  otelHeaders: Record<string, string>;
  otelServiceName: string;
  otelSampleRatio: number;
  mcpTenant: string;
  mcpAllowedHosts: string[];
  receipts: ReceiptsSetting;
  receiptSigning: SigningKeys;
  receiptWebhooks: boolean;
  receiptAsyncCommit: boolean;
  region: string | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Parsed = string | number | boolean | string[];

function parseValue(spec: SettingSpec, raw: string): Parsed | { problem: string } {
  const shown = JSON.stringify(spec.secret ? '<redacted>' : raw);
  const name = `SERVICE_${spec.name}`;
  switch (spec.kind) {
    case 'bool': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
      return { problem: `${name} must be a boolean (true/false/1/0), got ${shown}` };
    }
    case 'int':
    case 'number': {
      const v = raw.trim();
      const ok = spec.kind === 'int' ? /^-?\d+$/.test(v) : /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v);
      const n = Number(v);
      if (!ok || !Number.isFinite(n)) {
        return { problem: `${name} must be ${spec.kind === 'int' ? 'an integer' : 'a number'}, got ${shown}` };
      }
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        return { problem: `${name} must be between ${spec.min} and ${spec.max}, got ${shown}` };
      }
      return n;
    }
    case 'enum': {
      const v = raw.trim().toLowerCase();
      if (!spec.values!.includes(v)) return { problem: `${name} must be one of ${spec.values!.join(', ')}, got ${shown}` };
      return v;
    }
    case 'json-list': {
      try {
        const v: unknown = JSON.parse(raw);
        if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
      } catch {
        // Also accept a comma-separated list, which is what operators tend to type.
        if (!raw.trim().startsWith('[')) return raw.split(',').map((s) => s.trim()).filter(Boolean);
      }
      return { problem: `${name} must be a JSON list of strings like ["https://a.example"], got ${shown}` };
    }
    default:
      return raw;
  }
}

/** `key=value,key2=value2` (the OTEL_EXPORTER_OTLP_HEADERS format, values URL-encoded) or null when malformed. */
export function parseHeaderList(raw: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    try {
      out[part.slice(0, eq).trim()] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return out;
}

/** Normalises the URL forms older deployments use (`postgresql+asyncpg://`) to what pg reads. */
export function normaliseDatabaseUrl(raw: string): string | { problem: string } {
  const url = raw.trim();
  if (url === '') return '';
  const m = /^(postgres(?:ql)?)(\+[a-z0-9]+)?:\/\//i.exec(url);
  if (!m) {
    return { problem: `SERVICE_DATABASE_URL must start with postgresql://, postgres:// or postgresql+asyncpg:// (other databases are not supported), got scheme ${JSON.stringify(url.split(':')[0])}` };
  }
  return `postgresql://${url.slice(m[0].length)}`;
}

/** Most HTTP workers: beyond this, pools (workers × DATABASE_POOL_SIZE) outgrow a default PostgreSQL. */
const MAX_WORKERS = 64;

/**
 * SERVICE_WORKERS: an integer or `auto` (one per CPU the process may use). The embedded engine
 * is one process holding its data directory's lock, so more than one worker needs PostgreSQL;
 * `auto` there resolves to 1 rather than refusing, so one manifest serves both engines.
 */
export function parseWorkers(raw: string, postgres: boolean): number | { problem: string } {
  const v = raw.trim().toLowerCase();
  if (v === 'auto') return postgres ? Math.min(MAX_WORKERS, Math.max(1, availableParallelism())) : 1;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= MAX_WORKERS)) return { problem: `SERVICE_WORKERS must be an integer between 1 and ${MAX_WORKERS} or auto, got ${JSON.stringify(raw)}` };
  if (n > 1 && !postgres) {
    return {
      problem: `SERVICE_WORKERS=${n} needs SERVICE_DATABASE_URL: the embedded engine (PGlite) runs in one process that owns its data directory, so it cannot be shared by ${n} workers. Set SERVICE_WORKERS=1 (or auto), or move to PostgreSQL.`,
    };
  }
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const problems: string[] = [];
  const values = readSettings(env, problems);
  const checked = checkSettings(values, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return buildConfig(values, checked);
}

/** Each setting parsed by its kind (SETTINGS); a bad value adds a problem and is left out. */
function readSettings(env: NodeJS.ProcessEnv, problems: string[]): Map<string, Parsed> {
  const values = new Map<string, Parsed>();
  for (const spec of SETTINGS) {
    let raw = env[`SERVICE_${spec.name}`];
    for (const alias of spec.aliases ?? []) raw ??= env[alias];
    if (spec.secret && raw?.includes(SECRET_PLACEHOLDER)) {
      problems.push(`SERVICE_${spec.name} still holds the placeholder ${SECRET_PLACEHOLDER} (deploy/kubernetes/secret.yaml): set a real secret`);
      continue;
    }
    const parsed = parseValue(spec, raw ?? spec.default);
    if (typeof parsed === 'object' && !Array.isArray(parsed)) problems.push(parsed.problem);
    else values.set(spec.name, parsed);
  }
  return values;
}

/** What checkSettings derives for buildConfig (valid once no problem was reported). */
interface CheckedSettings {
  dbUrl: string;
  workers: number;
  tenantHeader: string;
  webhookUrl: string;
  otelEndpoint: string;
  otelHeaders: Record<string, string>;
  mcpTenant: string;
  replicaUrls: string[];
  signing: SigningKeys;
  region: string;
}

/** The rules a kind cannot express: URL and header formats, and the rules across settings. */
function checkSettings(values: Map<string, Parsed>, problems: string[]): CheckedSettings {
  const dbUrl = normaliseDatabaseUrl(String(values.get('DATABASE_URL') ?? ''));
  if (typeof dbUrl === 'object') problems.push(dbUrl.problem);
  const tenantHeader = String(values.get('TENANT_HEADER') ?? '');
  if (!/^[A-Za-z0-9-]{1,64}$/.test(tenantHeader)) {
    problems.push(`SERVICE_TENANT_HEADER must be a header name (letters, digits, dashes), got ${JSON.stringify(tenantHeader)}`);
  }
  const webhookUrl = String(values.get('WEBHOOK_URL') ?? '');
  if (webhookUrl && !/^https?:\/\/\S+$/i.test(webhookUrl)) {
    problems.push(`SERVICE_WEBHOOK_URL must be an http(s) URL, got ${JSON.stringify(webhookUrl)}`);
  }
  for (const name of ['OPENAI_BASE_URL', 'EMBEDDING_BASE_URL', 'LLM_BASE_URL']) {
    const url = String(values.get(name) ?? '');
    if (url && !/^https?:\/\/\S+$/i.test(url)) problems.push(`SERVICE_${name} must be an http(s) URL like http://127.0.0.1:11434/v1, got ${JSON.stringify(url)}`);
  }
  const otelEndpoint = String(values.get('OTEL_EXPORTER_OTLP_ENDPOINT') ?? '').trim();
  if (otelEndpoint && !/^https?:\/\/\S+$/i.test(otelEndpoint)) {
    problems.push(`SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL like http://otel-collector:4318, got ${JSON.stringify(otelEndpoint)}`);
  }
  const otelHeaders = parseHeaderList(String(values.get('OTEL_EXPORTER_OTLP_HEADERS') ?? ''));
  if (otelHeaders === null) problems.push('SERVICE_OTEL_EXPORTER_OTLP_HEADERS must be a list like key=value,key2=value2');
  const mcpTenant = String(values.get('MCP_TENANT') ?? '');
  if (mcpTenant.length > 256) problems.push('SERVICE_MCP_TENANT must be at most 256 characters');
  const replicaUrls: string[] = [];
  for (const raw of (values.get('READ_REPLICA_URLS') as string[] | undefined) ?? []) {
    const url = normaliseDatabaseUrl(raw);
    if (typeof url === 'object') problems.push(url.problem.replace('SERVICE_DATABASE_URL', 'each of SERVICE_READ_REPLICA_URLS'));
    else if (url) replicaUrls.push(url);
  }
  if (replicaUrls.length > 0 && !dbUrl) {
    problems.push('SERVICE_READ_REPLICA_URLS needs SERVICE_DATABASE_URL: read replicas are PostgreSQL streaming replicas of it, and the embedded engine (PGlite) has none. Unset SERVICE_READ_REPLICA_URLS or move to PostgreSQL.');
  }
  if (replicaUrls.length > 0 && Number(values.get('READ_YOUR_WRITES_WINDOW')) <= Number(values.get('READ_REPLICA_MAX_LAG'))) {
    problems.push('SERVICE_READ_YOUR_WRITES_WINDOW must be longer than SERVICE_READ_REPLICA_MAX_LAG: after the window a write is assumed replayed by every replica in use.');
  }
  const workers = parseWorkers(String(values.get('WORKERS') ?? '1'), dbUrl !== '' && typeof dbUrl === 'string');
  if (typeof workers === 'object') problems.push(workers.problem);
  const signing = parseSigningKeys(String(values.get('RECEIPT_SIGNING_KEYS') ?? ''), String(values.get('RECEIPT_SIGNING_KEY_ID') ?? ''));
  if ('problems' in signing) problems.push(...signing.problems);
  const region = String(values.get('REGION') ?? '').trim();
  if (region.length > 64) problems.push('SERVICE_REGION must be at most 64 characters');
  return {
    dbUrl: typeof dbUrl === 'string' ? dbUrl : '',
    workers: typeof workers === 'number' ? workers : 1,
    tenantHeader,
    webhookUrl,
    otelEndpoint,
    otelHeaders: otelHeaders ?? {},
    mcpTenant,
    replicaUrls,
    signing: signing as SigningKeys,
    region,
  };
}

/** The frozen object the service reads, from valid settings. */
function buildConfig(values: Map<string, Parsed>, { dbUrl, workers, tenantHeader, webhookUrl, otelEndpoint, otelHeaders, mcpTenant, replicaUrls, signing, region }: CheckedSettings): AppConfig {
  const get = <T extends Parsed>(name: string) => values.get(name) as T;
  const databaseUrl = dbUrl || null;
  const autoMigrate = get<string>('AUTO_MIGRATE');
  const debug = get<boolean>('DEBUG');
  return Object.freeze({
    databaseUrl,
    dataDir: get<string>('DATA_DIR'),
    databasePoolSize: get<number>('DATABASE_POOL_SIZE'),
    databaseStatementTimeoutMs: get<number>('DATABASE_STATEMENT_TIMEOUT_MS'),
    databaseIdleInTransactionTimeoutMs: get<number>('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS'),
    databaseQueryTimeoutMs: get<number>('DATABASE_QUERY_TIMEOUT_MS'),
    databaseKeepaliveIdleMs: get<number>('DATABASE_KEEPALIVE_IDLE_MS'),
    readReplicaUrls: Object.freeze(replicaUrls) as string[],
    readReplicaMaxLagMs: Math.round(get<number>('READ_REPLICA_MAX_LAG') * 1000),
    readYourWritesWindowMs: Math.round(get<number>('READ_YOUR_WRITES_WINDOW') * 1000),
    autoMigrate: autoMigrate === 'auto' ? databaseUrl === null : autoMigrate === 'true',
    host: get<string>('HOST'),
    port: get<number>('PORT'),
    debug,
    logLevel: debug && get<string>('LOG_LEVEL') === 'info' ? 'debug' : get<string>('LOG_LEVEL'),
    compilerType: get<AppConfig['compilerType']>('COMPILER_TYPE'),
    embeddingProvider: get<AppConfig['embeddingProvider']>('EMBEDDING_PROVIDER'),
    embeddingDimensions: get<number>('EMBEDDING_DIMENSIONS'),
    openaiApiKey: get<string>('OPENAI_API_KEY'),
    openaiBaseUrl: get<string>('OPENAI_BASE_URL'),
    embeddingBaseUrl: get<string>('EMBEDDING_BASE_URL') || get<string>('OPENAI_BASE_URL'),
    embeddingApiKey: get<string>('EMBEDDING_API_KEY') || get<string>('OPENAI_API_KEY'),
    llmBaseUrl: get<string>('LLM_BASE_URL') || get<string>('OPENAI_BASE_URL'),
    llmApiKey: get<string>('LLM_API_KEY') || get<string>('OPENAI_API_KEY'),
    openaiEmbeddingModel: get<string>('OPENAI_EMBEDDING_MODEL'),
    llmCompilerModel: get<string>('LLM_COMPILER_MODEL'),
    llmResponseFormat: get<AppConfig['llmResponseFormat']>('LLM_RESPONSE_FORMAT'),
    llmFallbackToHeuristic: get<boolean>('LLM_FALLBACK_TO_HEURISTIC'),
    llmMaxEpisodesPerCompile: get<number>('LLM_MAX_EPISODES_PER_COMPILE'),
    llmChunkTokens: get<number>('LLM_CHUNK_TOKENS'),
    llmMaxOutputTokens: get<number>('LLM_MAX_OUTPUT_TOKENS'),
    llmTimeoutMs: Math.round(get<number>('LLM_TIMEOUT') * 1000),
    llmMaxRetries: get<number>('LLM_MAX_RETRIES'),
    llmConcurrency: get<number>('LLM_CONCURRENCY'),
    embeddingBatchSize: get<number>('EMBEDDING_BATCH_SIZE'),
    embeddingTimeoutMs: Math.round(get<number>('EMBEDDING_TIMEOUT') * 1000),
    embeddingSendDimensions: get<AppConfig['embeddingSendDimensions']>('EMBEDDING_SEND_DIMENSIONS'),
    embeddingBackfillIntervalMinutes: get<number>('EMBEDDING_BACKFILL_INTERVAL_MINUTES'),
    defaultMaxContextTokens: get<number>('DEFAULT_MAX_CONTEXT_TOKENS'),
    apiKey: get<string>('API_KEY'),
    rateLimitRpm: get<number>('RATE_LIMIT_RPM'),
    rateLimitStrategy: get<AppConfig['rateLimitStrategy']>('RATE_LIMIT_STRATEGY'),
    trustedProxies: get<string>('TRUSTED_PROXIES'),
    webhookUrl,
    webhookTimeoutMs: Math.round(get<number>('WEBHOOK_TIMEOUT') * 1000),
    healthRefreshDelayMs: get<number>('HEALTH_REFRESH_DELAY_MS'),
    webhookMaxAttempts: get<number>('WEBHOOK_MAX_ATTEMPTS'),
    webhookRetentionDays: get<number>('WEBHOOK_RETENTION_DAYS'),
    webhookDeadLetterRetentionDays: get<number>('WEBHOOK_DEAD_LETTER_RETENTION_DAYS'),
    webhookSecret: get<string>('WEBHOOK_SECRET'),
    compileJobRetentionHours: get<number>('COMPILE_JOB_RETENTION_HOURS'),
    compileJobMaxAttempts: get<number>('COMPILE_JOB_MAX_ATTEMPTS'),
    corsOrigins: Object.freeze([...get<string[]>('CORS_ORIGINS')]) as string[],
    requireTenant: get<boolean>('REQUIRE_TENANT'),
    tenantHeader,
    enableSnapshots: get<boolean>('ENABLE_SNAPSHOTS'),
    consoleEnabled: get<boolean>('CONSOLE_ENABLED'),
    strictSchema: get<boolean>('STRICT_SCHEMA'),
    maxBodyBytes: get<number>('MAX_BODY_BYTES'),
    maxImportBytes: get<number>('MAX_IMPORT_BYTES'),
    readPageBytes: get<number>('READ_PAGE_BYTES'),
    socketIdleTimeoutMs: get<number>('SOCKET_IDLE_TIMEOUT_MS'),
    ingestGroupCommit: get<boolean>('INGEST_GROUP_COMMIT'),
    workers,
    workersEnabled: get<boolean>('WORKERS_ENABLED'),
    workerPollMs: get<number>('WORKER_POLL_MS'),
    otelEndpoint,
    otelHeaders: Object.freeze({ ...otelHeaders }),
    otelServiceName: get<string>('OTEL_SERVICE_NAME'),
    otelSampleRatio: get<number>('OTEL_SAMPLE_RATIO'),
    mcpTenant,
    mcpAllowedHosts: Object.freeze([...get<string[]>('MCP_ALLOWED_HOSTS')]) as string[],
    receipts: get<AppConfig['receipts']>('RECEIPTS'),
    receiptSigning: signing,
    receiptWebhooks: get<boolean>('RECEIPT_WEBHOOKS'),
    receiptAsyncCommit: get<boolean>('RECEIPT_ASYNC_COMMIT'),
    region: region === '' ? null : region,
  });
}

/**
 * The environment, with .env filling only variables it does not already set, validated. Free of
 * Nest so the cluster primary (src/main.ts) reads it without loading the application.
 */
export function readConfig(): AppConfig {
  loadDotenv({ quiet: true });
  return loadConfig(process.env);
}
