/**
 * Every SERVICE_* setting: the contract's table plus the operational ones this
 * implementation adds. This list is the single source for parsing, validation and the
 * configuration reference in docs/.
 */
/** SERVICE_RECEIPTS, which a tenant's policy bundle may override with its `receipts:` key. */
export const RECEIPTS_SETTINGS = ['off', 'on_request', 'always'] as const;
export type ReceiptsSetting = (typeof RECEIPTS_SETTINGS)[number];

export type SettingKind = 'string' | 'int' | 'number' | 'bool' | 'enum' | 'json-list';

export interface SettingSpec {
  /** Name without the SERVICE_ prefix. */
  name: string;
  kind: SettingKind;
  default: string;
  description: string;
  secret?: boolean;
  min?: number;
  max?: number;
  values?: readonly string[];
  /** Other environment variables read when the SERVICE_ one is absent (provider conventions). */
  aliases?: readonly string[];
}

/**
 * The value deploy/kubernetes/secret.yaml ships in place of every secret. A deployment that
 * forgot to replace it would run with a key everyone can read in the repository, so start-up
 * refuses any secret setting that contains it.
 */
export const SECRET_PLACEHOLDER = 'CHANGE_ME';

export const SETTINGS: readonly SettingSpec[] = [
  { name: 'DATABASE_URL', kind: 'string', default: '', description: 'PostgreSQL URL (postgresql://, postgres:// or postgresql+asyncpg://). Empty: embedded PGlite under DATA_DIR.', secret: true },
  { name: 'DATA_DIR', kind: 'string', default: './data', description: 'Directory of the embedded PGlite database (used when DATABASE_URL is empty).' },
  { name: 'DATABASE_POOL_SIZE', kind: 'int', default: '10', min: 1, max: 200, description: 'Connections in the PostgreSQL pool (the embedded engine always uses 1).' },
  { name: 'DATABASE_STATEMENT_TIMEOUT_MS', kind: 'int', default: '30000', min: 0, max: 86400000, description: 'PostgreSQL statement_timeout of every connection, in ms: the server cancels a statement running longer (the request answers 503). 0: no limit. Not enforced by the embedded engine.' },
  { name: 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', kind: 'int', default: '60000', min: 0, max: 86400000, description: 'PostgreSQL idle_in_transaction_session_timeout of every connection, in ms: the server ends a session left idle inside a transaction, releasing its locks and snapshot. 0: no limit.' },
  { name: 'DATABASE_QUERY_TIMEOUT_MS', kind: 'int', default: '35000', min: 0, max: 86400000, description: 'Client-side limit of one query, in ms (PostgreSQL): a query without an answer by then fails with 503 and its connection is closed, so a database that stops answering cannot hang requests. Keep it above the statement timeout. 0: no limit.' },
  { name: 'DATABASE_KEEPALIVE_IDLE_MS', kind: 'int', default: '10000', min: 0, max: 3600000, description: 'TCP keepalive on every PostgreSQL connection: idle time before the first probe, in ms (the kernel then declares a silent peer dead after its probe count). 0: keepalive off.' },
  { name: 'READ_REPLICA_URLS', kind: 'json-list', default: '[]', description: 'PostgreSQL streaming replicas (read-only URLs, JSON list or comma-separated) for context, search, timeline, listings and SLA reads; writes, compiles and health recomputation stay on DATABASE_URL. Needs DATABASE_URL (the embedded engine has no replicas). Empty: every read on the primary.', secret: true },
  { name: 'READ_REPLICA_MAX_LAG', kind: 'number', default: '5', min: 0.1, max: 3600, description: 'Seconds a replica may be behind the primary before its reads go to the primary (it is reported as lagging in /readyz and metrics).' },
  { name: 'READ_YOUR_WRITES_WINDOW', kind: 'number', default: '10', min: 0.1, max: 3600, description: 'Seconds after a write to a subject during which its reads use a replica only once that replica has replayed the write (else the primary). Must exceed READ_REPLICA_MAX_LAG.' },
  { name: 'AUTO_MIGRATE', kind: 'enum', default: 'auto', values: ['auto', 'true', 'false'], description: 'Run pending migrations at start-up. auto: always on the embedded engine, never on PostgreSQL (run `npm run migrate -- upgrade head`).' },
  { name: 'HOST', kind: 'string', default: '0.0.0.0', description: 'Bind host.' },
  { name: 'PORT', kind: 'int', default: '8100', min: 0, max: 65535, description: 'Bind port.' },
  { name: 'DEBUG', kind: 'bool', default: 'false', description: 'Debug logging with a human-readable console renderer.' },
  { name: 'LOG_LEVEL', kind: 'enum', default: 'info', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], description: 'Minimum log level (debug when DEBUG=true).' },
  { name: 'COMPILER_TYPE', kind: 'enum', default: 'heuristic', values: ['heuristic', 'llm'], description: 'Memory compiler.' },
  { name: 'EMBEDDING_PROVIDER', kind: 'enum', default: 'stub', values: ['stub', 'none', 'openai'], description: 'stub: deterministic local embedding; none: no embeddings; openai: OpenAI or any OpenAI-compatible server.' },
  { name: 'EMBEDDING_DIMENSIONS', kind: 'int', default: '1536', min: 8, max: 16000, description: 'Vector dimensions.' },
  { name: 'OPENAI_API_KEY', kind: 'string', default: '', description: 'Key for the OpenAI-compatible provider (OPENAI_API_KEY is also read).', secret: true, aliases: ['OPENAI_API_KEY'] },
  { name: 'OPENAI_BASE_URL', kind: 'string', default: '', description: 'Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio). Empty: api.openai.com.', aliases: ['OPENAI_BASE_URL'] },
  { name: 'EMBEDDING_BASE_URL', kind: 'string', default: '', description: 'Base URL of the embedding server when it is not OPENAI_BASE_URL (e.g. a local embedding server next to a hosted chat model). Empty: OPENAI_BASE_URL.' },
  { name: 'EMBEDDING_API_KEY', kind: 'string', default: '', description: 'Key for EMBEDDING_BASE_URL. Empty: OPENAI_API_KEY.', secret: true },
  { name: 'LLM_BASE_URL', kind: 'string', default: '', description: 'Base URL of the chat model of the llm compiler when it is not OPENAI_BASE_URL. Empty: OPENAI_BASE_URL.' },
  { name: 'LLM_API_KEY', kind: 'string', default: '', description: 'Key for LLM_BASE_URL. Empty: OPENAI_API_KEY.', secret: true },
  { name: 'OPENAI_EMBEDDING_MODEL', kind: 'string', default: 'text-embedding-3-small', description: 'Embedding model.' },
  { name: 'LLM_COMPILER_MODEL', kind: 'string', default: 'gpt-4o-mini', description: 'Chat model for the llm compiler.' },
  { name: 'LLM_RESPONSE_FORMAT', kind: 'enum', default: 'json_schema', values: ['json_schema', 'json_object', 'none'], description: 'How the llm compiler asks for JSON: json_schema (OpenAI, vLLM, llama.cpp, LM Studio, recent Ollama), json_object (JSON mode), none (prompt only; the reply is still parsed and validated).' },
  { name: 'LLM_FALLBACK_TO_HEURISTIC', kind: 'bool', default: 'false', description: 'When the llm compiler fails (model unreachable, invalid output after one repair retry), compile with the heuristic compiler instead of failing the compile.' },
  { name: 'LLM_MAX_EPISODES_PER_COMPILE', kind: 'int', default: '200', min: 1, max: 100000, description: 'Most uncompiled episodes (oldest first) one llm compile processes; the rest stay uncompiled for the next compile.' },
  { name: 'LLM_CHUNK_TOKENS', kind: 'int', default: '6000', min: 256, max: 1000000, description: 'Episode text per llm request, in tokens; a subject\'s episodes are sent in chunks of at most this size (a longer episode is cut to it).' },
  { name: 'LLM_MAX_OUTPUT_TOKENS', kind: 'int', default: '4096', min: 0, max: 1000000, description: 'max_tokens of each llm request; 0 sends no limit.' },
  { name: 'LLM_TIMEOUT', kind: 'number', default: '120', min: 0.1, max: 3600, description: 'Timeout of one llm request in seconds (each retry gets its own).' },
  { name: 'LLM_MAX_RETRIES', kind: 'int', default: '2', min: 0, max: 10, description: 'Retries of a model request (llm and embeddings) after a timeout, a connection error, 429 (Retry-After is honoured up to 60 s) or 5xx, with exponential backoff.' },
  { name: 'LLM_CONCURRENCY', kind: 'int', default: '4', min: 1, max: 256, description: 'Most model requests (llm and embeddings together) in flight at once in this process.' },
  { name: 'EMBEDDING_BATCH_SIZE', kind: 'int', default: '64', min: 1, max: 2048, description: 'Texts per embedding request (openai provider).' },
  { name: 'EMBEDDING_TIMEOUT', kind: 'number', default: '30', min: 0.1, max: 3600, description: 'Timeout of one embedding request in seconds (each retry gets its own).' },
  { name: 'EMBEDDING_SEND_DIMENSIONS', kind: 'enum', default: 'auto', values: ['auto', 'true', 'false'], description: 'Send EMBEDDING_DIMENSIONS as the `dimensions` request parameter. auto: only for OpenAI text-embedding-3 models (others reject it; their native size must equal EMBEDDING_DIMENSIONS).' },
  { name: 'EMBEDDING_BACKFILL_INTERVAL_MINUTES', kind: 'int', default: '5', min: 0, max: 10080, description: 'How often the background task embeds memories stored without an embedding (provider was down); 0 disables it (use the `embeddings backfill` command).' },
  { name: 'DEFAULT_MAX_CONTEXT_TOKENS', kind: 'int', default: '4000', min: 1, max: 128000, description: 'Default context budget.' },
  { name: 'API_KEY', kind: 'string', default: '', description: 'Authentication key; empty means open access.', secret: true },
  { name: 'RATE_LIMIT_RPM', kind: 'int', default: '0', min: 0, max: 1000000, description: 'Requests per minute per client IP; 0 disables.' },
  { name: 'RATE_LIMIT_STRATEGY', kind: 'enum', default: 'distributed', values: ['distributed', 'memory'], description: 'distributed: database fixed window shared by all processes; memory: per-process sliding window.' },
  { name: 'TRUSTED_PROXIES', kind: 'string', default: '', description: 'Express "trust proxy" value (e.g. loopback, 10.0.0.0/8, or a hop count) so the client IP is read from X-Forwarded-For. Empty: trust none.' },
  { name: 'WEBHOOK_URL', kind: 'string', default: '', description: 'Webhook callback URL; empty disables webhooks.' },
  { name: 'WEBHOOK_TIMEOUT', kind: 'number', default: '5.0', min: 0.1, max: 300, description: 'Webhook timeout in seconds.' },
  { name: 'WEBHOOK_MAX_ATTEMPTS', kind: 'int', default: '8', min: 1, max: 100, description: 'Delivery attempts before an event is dead-lettered.' },
  { name: 'WEBHOOK_RETENTION_DAYS', kind: 'number', default: '7', min: 0, max: 3650, description: 'Days a delivered webhook event is kept (counted from its delivery) before the prune removes it; 0 keeps them forever. Pending events are never pruned.' },
  { name: 'WEBHOOK_DEAD_LETTER_RETENTION_DAYS', kind: 'number', default: '0', min: 0, max: 3650, description: 'Days a dead-lettered webhook event is kept (counted from its last attempt) before the prune removes it; 0 (default) keeps dead letters until they are requeued.' },
  { name: 'WEBHOOK_SECRET', kind: 'string', default: '', description: 'When set, deliveries carry an HMAC-SHA256 signature header.', secret: true },
  { name: 'COMPILE_JOB_RETENTION_HOURS', kind: 'number', default: '168', min: 0, max: 87600, description: 'Hours completed or failed compile jobs are kept; 0 means no cleanup.' },
  { name: 'COMPILE_JOB_MAX_ATTEMPTS', kind: 'int', default: '3', min: 1, max: 100, description: 'Times a compile job is started before a job whose worker keeps stopping mid-run (a poison job) is marked failed, with the reason as its error; `jobs requeue-failed` puts it back.' },
  { name: 'CORS_ORIGINS', kind: 'json-list', default: '["*"]', description: 'Allowed CORS origins as a JSON list.' },
  { name: 'REQUIRE_TENANT', kind: 'bool', default: 'false', description: 'Require the tenant header; turns on tenant isolation.' },
  { name: 'TENANT_HEADER', kind: 'string', default: 'X-Tenant-ID', description: 'Name of the tenant header.' },
  { name: 'ENABLE_SNAPSHOTS', kind: 'bool', default: 'false', description: 'Enables snapshot and cleanup admin endpoints and the hourly cleanup.' },
  { name: 'CONSOLE_ENABLED', kind: 'bool', default: 'true', description: 'Serve the web console (static pages built into console/dist) at /console (docs/console.md). The pages hold no data: the browser calls the API with the key the user signs in with. false: /console is refused like any unknown route.' },
  { name: 'STRICT_SCHEMA', kind: 'bool', default: 'false', description: 'Refuse to start on schema mismatch (set to 1).' },
  { name: 'MAX_BODY_BYTES', kind: 'int', default: '2097152', min: 1024, max: 1073741824, description: 'Largest accepted request body in bytes (413 above it).' },
  { name: 'MAX_IMPORT_BYTES', kind: 'int', default: '8388608', min: 1024, max: 4294967296, description: 'Largest accepted /admin/import body in bytes (at most 500,000 JSON values). The default fits start:prod\'s 192 MB heap; raise the heap with it (docs/operations.md "Memory").' },
  { name: 'READ_PAGE_BYTES', kind: 'int', default: '4194304', min: 65536, max: 268435456, description: 'Byte budget of one page of a subject\'s rows held in memory: a timeline page (episodes and memories each), an export or snapshot page, a compile round. A page stops at the row that crosses it (always at least one row), so one page holds at most this plus one episode.' },
  { name: 'SOCKET_IDLE_TIMEOUT_MS', kind: 'int', default: '120000', min: 0, max: 86400000, description: 'A client connection with no bytes moving either way for this long is closed (a reader that stopped reading an export, a sender that stalled). 0: never.' },
  { name: 'INGEST_GROUP_COMMIT', kind: 'bool', default: 'true', description: 'Write concurrent single-episode requests (POST /v1/episodes, MCP ingest_episode) that arrive while the previous group commits as one transaction and one INSERT, each answered after that commit (docs/scaling.md). false: each request is written on its own.' },
  { name: 'WORKERS', kind: 'string', default: '1', description: 'HTTP worker processes sharing the port (Node cluster): an integer 1–64, or `auto` for one per CPU. Each worker runs the background workers too (rows are claimed with SKIP LOCKED, periodic tasks take advisory locks, as between replicas); /metrics aggregates all workers. More than 1 needs DATABASE_URL: the embedded engine is one process that owns its data directory (`auto` there means 1).' },
  { name: 'HEALTH_REFRESH_DELAY_MS', kind: 'int', default: '200', min: 0, max: 60000, description: 'Milliseconds ingestion marks gather before the marked subjects\' health is recomputed (one recomputation per subject however many episodes arrived meanwhile): longer folds bigger bursts, shorter tells webhook receivers sooner.' },
  { name: 'WORKERS_ENABLED', kind: 'bool', default: 'true', description: 'Run the compile-job and webhook workers and the periodic maintenance tasks in this process.' },
  { name: 'WORKER_POLL_MS', kind: 'int', default: '1000', min: 10, max: 600000, description: 'How often idle workers look for new rows.' },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', kind: 'string', default: '', description: 'OTLP/HTTP collector base URL (e.g. http://otel-collector:4318); traces go to <url>/v1/traces. Empty: tracing off.', aliases: ['OTEL_EXPORTER_OTLP_ENDPOINT'] },
  { name: 'OTEL_EXPORTER_OTLP_HEADERS', kind: 'string', default: '', description: 'Headers sent to the collector, as `key=value,key2=value2`.', secret: true, aliases: ['OTEL_EXPORTER_OTLP_HEADERS'] },
  { name: 'OTEL_SERVICE_NAME', kind: 'string', default: 'memory-service', description: 'service.name resource attribute of the spans.', aliases: ['OTEL_SERVICE_NAME'] },
  { name: 'OTEL_SAMPLE_RATIO', kind: 'number', default: '1', min: 0, max: 1, description: 'Share of new traces sampled (a parent\'s decision is kept).' },
  { name: 'RECEIPTS', kind: 'enum', default: 'on_request', values: RECEIPTS_SETTINGS, description: 'Context and handoff receipts (docs/governance.md): off; on_request (when the request says emit_receipt: true); always. A tenant\'s policy bundle can override it with its `receipts:` key.' },
  { name: 'RECEIPT_SIGNING_KEYS', kind: 'string', default: '', description: 'Receipt signing keys as kid=secret pairs, comma-separated (secrets of at least 16 characters). Keep retired ids listed so their receipts still verify. Empty: receipts are unsigned.', secret: true },
  { name: 'RECEIPT_SIGNING_KEY_ID', kind: 'string', default: '', description: 'Id of the key that signs new receipts; may be empty when exactly one key is configured.' },
  { name: 'RECEIPT_ASYNC_COMMIT', kind: 'bool', default: 'false', description: 'true writes a receipt without waiting for the disk flush of its commit (synchronous_commit off for that one statement): the context path saves about one WAL flush, but a database server crash can then lose the receipts of its last moments (about 0.6 s) after their ids were returned (never corrupt them). Off by default: a returned receipt_id is durable. Receipts written with a receipt.created webhook always wait.' },
  { name: 'RECEIPT_WEBHOOKS', kind: 'bool', default: 'false', description: 'Emit a `receipt.created` webhook event for every receipt written.' },
  { name: 'REGION', kind: 'string', default: '', description: 'Region name written into receipts (`region`); empty: null.' },
  { name: 'MCP_ALLOWED_HOSTS', kind: 'json-list', default: '[]', description: 'Host names /mcp answers to besides loopback and the hosts of CORS_ORIGINS (DNS-rebinding guard), e.g. ["memory.internal"]. Other Host or Origin values get 403.' },
  { name: 'MCP_TENANT', kind: 'string', default: '', description: 'Tenant of the stdio MCP server (`mcp` command) when no --tenant flag is given; required there when REQUIRE_TENANT is on.' },
] as const;
