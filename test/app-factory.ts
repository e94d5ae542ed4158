import 'reflect-metadata';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import request from 'supertest';
import { AppModule } from 'src/app.module';
import { LOG_STREAM } from 'src/common/logging/log-stream.module';
import { configureApp } from 'src/app.setup';
import { ExpressServerAdapter } from 'src/common/http/express-server';
import { APP_CONFIG, AppConfig, loadConfig } from 'src/config/app-config';

export interface TestApp {
  app: NestExpressApplication;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  http: any;
  config: AppConfig;
  ds: DataSource;
  close(): Promise<void>;
}

/** Every table a test can write; emptied before each test file so no file depends on the order they run in. */
export const ALL_TABLES = 'episodes, memories, compile_jobs, webhook_events, webhook_event_counts, resolutions, health_cache, health_refresh_marks, health_history, snapshots, rate_limits, receipts, policy_bundles, memory_revisions, api_keys';

export function testEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    SERVICE_DATABASE_URL: process.env.TEST_DB_URL,
    SERVICE_DATABASE_POOL_SIZE: process.env.TEST_DB_POOL ?? '1',
    SERVICE_AUTO_MIGRATE: 'false',
    SERVICE_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Background loops are driven explicitly by tests (see the workers' runOnce helpers).
    SERVICE_WORKERS_ENABLED: 'false',
    ...env,
  };
}

/**
 * A full app on the run's shared test database (see global-setup.ts), with config from `env`.
 * By default the database is emptied first, so each test file starts clean.
 */
export async function createTestApp(
  env: Record<string, string> = {},
  opts: { reset?: boolean; logStream?: NodeJS.WritableStream } = {},
): Promise<TestApp> {
  const config = loadConfig(testEnv(env));
  // nestjs-pino keeps the first app's logger for lines outside a request (start-up, workers)
  // for the whole process: start each app with its own, so its log stream gets them.
  __resetOutOfContextForTests();
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
    .overrideProvider(APP_CONFIG)
    .useValue(config)
    .overrideProvider(LOG_STREAM)
    .useValue(opts.logStream ?? null)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(new ExpressServerAdapter(), { bodyParser: false });
  configureApp(app, config);
  await app.init();
  const ds = app.get(DataSource);
  if (opts.reset ?? true) await ds.query(`TRUNCATE ${ALL_TABLES}`);
  return { app, http: app.getHttpServer(), config, ds, close: () => app.close() };
}

export const isPglite = () => (process.env.TEST_ENGINE ?? 'pglite') === 'pglite';

/** Ingests one user message as a conversation episode of the subject; returns the episode id. */
export async function ingestText(t: TestApp, subject: string, text: string): Promise<string> {
  const res = await request(t.http)
    .post('/v1/episodes')
    .send({ subject_id: subject, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: text }] } })
    .expect(201);
  return res.body.id;
}
