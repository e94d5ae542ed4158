import { availableParallelism } from 'node:os';
import { ConfigError, loadConfig, normaliseDatabaseUrl } from './app-config';

describe('loadConfig', () => {
  it('gives the contract defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      databaseUrl: null,
      host: '0.0.0.0',
      port: 8100,
      debug: false,
      compilerType: 'heuristic',
      embeddingProvider: 'stub',
      embeddingDimensions: 1536,
      defaultMaxContextTokens: 4000,
      apiKey: '',
      rateLimitRpm: 0,
      rateLimitStrategy: 'distributed',
      webhookUrl: '',
      webhookTimeoutMs: 5000,
      healthRefreshDelayMs: 200,
      compileJobRetentionHours: 168,
      corsOrigins: ['*'],
      requireTenant: false,
      tenantHeader: 'X-Tenant-ID',
      enableSnapshots: false,
      strictSchema: false,
      autoMigrate: true,
      dataDir: './data',
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('lists every bad variable at once, naming the rule and the value', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({ SERVICE_PORT: 'eighty', SERVICE_REQUIRE_TENANT: 'maybe', SERVICE_COMPILER_TYPE: 'magic', SERVICE_EMBEDDING_DIMENSIONS: '0' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual([
      'SERVICE_PORT must be an integer, got "eighty"',
      'SERVICE_COMPILER_TYPE must be one of heuristic, llm, got "magic"',
      'SERVICE_EMBEDDING_DIMENSIONS must be between 8 and 16000, got "0"',
      'SERVICE_REQUIRE_TENANT must be a boolean (true/false/1/0), got "maybe"',
    ]);
  });

  it('never prints a secret value in an error', () => {
    expect(() => loadConfig({ SERVICE_DATABASE_URL: 'mysql://user:hunter2@db/x' })).toThrow(/scheme "mysql"/);
    try {
      loadConfig({ SERVICE_DATABASE_URL: 'mysql://user:hunter2@db/x' });
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
    }
  });

  it('reads STRICT_SCHEMA=1, WEBHOOK_TIMEOUT seconds and a JSON list of CORS origins', () => {
    const c = loadConfig({ SERVICE_STRICT_SCHEMA: '1', SERVICE_WEBHOOK_TIMEOUT: '2.5', SERVICE_CORS_ORIGINS: '["https://a.example","https://b.example"]' });
    expect(c.strictSchema).toBe(true);
    expect(c.webhookTimeoutMs).toBe(2500);
    expect(c.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('reads the provider key from OPENAI_API_KEY when SERVICE_OPENAI_API_KEY is absent', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x' }).openaiApiKey).toBe('sk-x');
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x', SERVICE_OPENAI_API_KEY: 'sk-y' }).openaiApiKey).toBe('sk-y');
  });

  it('runs migrations automatically on the embedded engine only, unless told otherwise', () => {
    expect(loadConfig({ SERVICE_DATABASE_URL: 'postgresql://localhost/db' }).autoMigrate).toBe(false);
    expect(loadConfig({ SERVICE_DATABASE_URL: 'postgresql://localhost/db', SERVICE_AUTO_MIGRATE: 'true' }).autoMigrate).toBe(true);
  });

  it('runs one HTTP worker by default, N on PostgreSQL, and refuses N > 1 on the embedded engine', () => {
    const pg = 'postgresql://localhost/db';
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ SERVICE_DATABASE_URL: pg, SERVICE_WORKERS: '3' }).workers).toBe(3);
    expect(loadConfig({ SERVICE_DATABASE_URL: pg, SERVICE_WORKERS: 'auto' }).workers).toBe(Math.min(64, availableParallelism()));
    // auto on the embedded engine is one process (a manifest may serve both engines).
    expect(loadConfig({ SERVICE_WORKERS: 'auto' }).workers).toBe(1);
    expect(() => loadConfig({ SERVICE_WORKERS: '2' })).toThrow(/SERVICE_WORKERS=2 needs SERVICE_DATABASE_URL: the embedded engine \(PGlite\) runs in one process/);
    for (const bad of ['0', '65', 'two', '1.5']) expect(() => loadConfig({ SERVICE_DATABASE_URL: pg, SERVICE_WORKERS: bad })).toThrow(/SERVICE_WORKERS must be an integer between 1 and 64 or auto/);
  });
});

describe('normaliseDatabaseUrl', () => {
  it('accepts postgresql://, postgres:// and the async-driver form of older deployments', () => {
    expect(normaliseDatabaseUrl('postgresql+asyncpg://u:p@h:5432/d')).toBe('postgresql://u:p@h:5432/d');
    expect(normaliseDatabaseUrl('postgres://h/d')).toBe('postgresql://h/d');
    expect(normaliseDatabaseUrl('postgresql://h/d')).toBe('postgresql://h/d');
    expect(normaliseDatabaseUrl('')).toBe('');
  });
});
