import 'reflect-metadata';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { joinCluster } from './cluster/cluster-worker';
import { tuneGarbageCollection } from './common/runtime/gc-tuning';
import { APP_CONFIG, AppConfig, ConfigError } from './config/app-config';
import { ReadRouter } from './db/read-replicas';
import { ExpressServerAdapter } from './common/http/express-server';

/**
 * The HTTP service: one process, or one cluster worker (forked by src/cluster with this file as
 * its script). Loaded by src/main.ts, which decides which.
 */
async function bootstrap(): Promise<void> {
  tuneGarbageCollection();
  const app = await NestFactory.create<NestExpressApplication>(AppModule, new ExpressServerAdapter(), { bodyParser: false, bufferLogs: true });
  const config = app.get<AppConfig>(APP_CONFIG);
  configureApp(app, config);
  joinCluster(app.getHttpServer() as Server, app.get(ReadRouter));
  await app.listen(config.port, config.host);
}

bootstrap().catch((err: unknown) => {
  // Config, schema and data-directory errors are operator errors: one clear message, no stack.
  const message = err instanceof ConfigError || (err instanceof Error && (err.name === 'SchemaMismatchError' || err.name === 'DataDirLockedError')) ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`memory-service failed to start: ${message}\n`);
  process.exit(1);
});
