import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from 'src/config/app-config';
import { openDatabase } from './data-source';
import { DATABASE, VECTOR_MODE } from './database.tokens';
import { StatisticsUpkeep } from './statistics-upkeep';
import type { Database } from './data-source';
import { readStatus, upgrade } from './migration-runner';
import { ReadRouter } from './read-replicas';
import { schemaReport } from './schema-guard';
import { alignVectorColumn, detectVectorMode, VectorMode } from './vector-support';

export { DATABASE, VECTOR_MODE };

export class SchemaMismatchError extends Error {}

async function startDatabase(config: AppConfig): Promise<Database> {
  const logger = new Logger('database');
  const db = await openDatabase(config);
  try {
    if (config.autoMigrate) {
      const steps = await upgrade(db.dataSource, 'head');
      if (steps.length) logger.log(`applied ${steps.length} migration(s): ${steps.map((s) => s.revision).join(', ')}`);
    }
    const report = schemaReport(await readStatus(db.dataSource));
    if (!report.is_compatible || report.pending_count > 0) {
      if (config.strictSchema) {
        throw new SchemaMismatchError(`STRICT_SCHEMA: refusing to start. ${report.summary}`);
      }
      logger.warn(`schema mismatch: ${report.summary}`);
    }
    return db;
  } catch (err) {
    await db.close();
    throw err;
  }
}

@Global()
@Module({
  providers: [
    { provide: DATABASE, inject: [APP_CONFIG], useFactory: startDatabase },
    { provide: DataSource, inject: [DATABASE], useFactory: (db: Database) => db.dataSource },
    {
      provide: VECTOR_MODE,
      inject: [DATABASE],
      useFactory: async (db: Database): Promise<VectorMode> => {
        const mode = await detectVectorMode(db.dataSource);
        alignVectorColumn(db.dataSource, mode);
        new Logger('database').log(`engine=${db.engine} vector=${mode} at ${db.location}`);
        return mode;
      },
    },
    {
      provide: ReadRouter,
      inject: [DATABASE, APP_CONFIG],
      useFactory: async (db: Database, config: AppConfig): Promise<ReadRouter> => {
        const router = new ReadRouter(db.dataSource, {
          urls: config.readReplicaUrls,
          poolSize: config.databasePoolSize,
          limits: config,
          maxLagMs: config.readReplicaMaxLagMs,
          windowMs: config.readYourWritesWindowMs,
        });
        await router.start();
        return router;
      },
    },
    StatisticsUpkeep,
  ],
  exports: [DATABASE, DataSource, VECTOR_MODE, ReadRouter],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly reads: ReadRouter,
  ) {}

  /** Last step of shutdown: workers have stopped in beforeApplicationShutdown. */
  async onApplicationShutdown(): Promise<void> {
    await this.reads.close();
    await this.db.close();
  }
}
