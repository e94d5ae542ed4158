import type { AppConfig } from 'src/config/app-config';
import { openDatabase } from 'src/db/data-source';
import { ReadRouter } from 'src/db/read-replicas';
import { AdminService } from 'src/modules/admin/admin.service';
import { EpisodesBulkService } from 'src/modules/episodes/episodes-bulk.service';
import { EpisodesExportRepository } from 'src/modules/episodes/episodes-export.repository';
import { EpisodesRepository } from 'src/modules/episodes/episodes.repository';
import { CompileJobsRepository } from 'src/modules/memories/compile-jobs.repository';
import { CompileJobsService } from 'src/modules/memories/compile-jobs.service';
import { MemoriesBulkService } from 'src/modules/memories/memories-bulk.service';
import { MemoriesExportRepository } from 'src/modules/memories/memories-export.repository';
import { MemoriesRepository } from 'src/modules/memories/memories.repository';
import { SubjectLock } from 'src/modules/memories/subject-lock';
import { ReceiptsBulkService } from 'src/modules/receipts/receipts-bulk.service';
import { ReceiptsExportRepository } from 'src/modules/receipts/receipts-export.repository';
import { ReceiptsRepository } from 'src/modules/receipts/receipts.repository';
import { SnapshotsRepository } from 'src/modules/snapshots/snapshots.repository';
import { SnapshotsService } from 'src/modules/snapshots/snapshots.service';

export interface OperatorServices {
  admin: AdminService;
  snapshots: SnapshotsService;
}

export const progress = (s: string) => process.stderr.write(s + '\n');
export const result = (s: string) => process.stdout.write(s + '\n');

/**
 * The services behind the admin and snapshot endpoints, on a plain DataSource: they need nothing
 * from Nest but the database, so the CLI skips the application context (no workers, no HTTP).
 */
export async function withOperatorServices<T>(config: AppConfig, fn: (services: OperatorServices) => Promise<T>): Promise<T> {
  const db = await openDatabase(config);
  progress(`database: ${db.engine} ${db.location}`);
  try {
    // The CLI writes on the primary and reads nothing it wrote through a replica: no routing.
    const reads = ReadRouter.primaryOnly(db.dataSource);
    const episodes = new EpisodesBulkService(new EpisodesRepository(), new EpisodesExportRepository());
    const memories = new MemoriesBulkService(new MemoriesRepository(), new MemoriesExportRepository());
    const receipts = new ReceiptsBulkService(new ReceiptsRepository(), new ReceiptsExportRepository());
    const jobs = new CompileJobsService(db.dataSource, new CompileJobsRepository());
    const subjectLock = new SubjectLock();
    const admin = new AdminService(config, db.dataSource, reads, subjectLock, jobs, episodes, memories, receipts);
    const snapshots = new SnapshotsService(
      db.dataSource,
      new SnapshotsRepository(),
      reads,
      subjectLock,
      episodes,
      memories,
      receipts,
    );
    return await fn({ admin, snapshots });
  } finally {
    await db.close();
  }
}
