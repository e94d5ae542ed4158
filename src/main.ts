import 'reflect-metadata';
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { joinCluster } from './cluster/cluster-worker';
import { runClusterPrimary } from './cluster/cluster-primary';
import { APP_CONFIG, AppConfig, ConfigError } from './config/app-config';
import { readConfig } from './config/config.module';
import { ReadRouter } from './db/read-replicas';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bodyParser: false, bufferLogs: true });
  const config = app.get<AppConfig>(APP_CONFIG);
  configureApp(app, config);
  joinCluster(app.getHttpServer() as Server, app.get(ReadRouter));
  await app.listen(config.port, config.host);
}

function fail(err: unknown): never {
  // Config, schema and data-directory errors are operator errors: one clear message, no stack.
  const message = err instanceof ConfigError || (err instanceof Error && (err.name === 'SchemaMismatchError' || err.name === 'DataDirLockedError')) ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`memory-service failed to start: ${message}\n`);
  process.exit(1);
}

// SERVICE_WORKERS > 1: this process only forks and supervises the HTTP workers (src/cluster),
// which run this file again as workers. The configuration is checked here first, so a bad
// variable stops the start once instead of failing every worker.
if (cluster.isPrimary) {
  let workers = 1;
  let logLevel = 'info';
  try {
    ({ workers, logLevel } = readConfig());
  } catch (err) {
    fail(err);
  }
  if (workers > 1) runClusterPrimary({ workers, logLevel });
  else bootstrap().catch(fail);
} else {
  bootstrap().catch(fail);
}
