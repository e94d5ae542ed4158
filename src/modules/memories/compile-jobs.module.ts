import { Module } from '@nestjs/common';
import { CompileJobsRepository } from './compile-jobs.repository';
import { CompileJobsService } from './compile-jobs.service';

/**
 * The compile-job queue's operator reads (CompileJobsService) for rooms that need nothing else
 * of memories: readiness and /metrics. No controllers, so importing it leaves the order of the
 * app's routes (and openapi.json) as it was.
 */
@Module({
  providers: [CompileJobsRepository, CompileJobsService],
  exports: [CompileJobsService],
})
export class CompileJobsModule {}
