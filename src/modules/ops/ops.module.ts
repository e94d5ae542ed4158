import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { CompileJobsModule } from 'src/modules/memories/compile-jobs.module';
import { OpsController } from './ops.controller';
import { OpsService } from './ops.service';

@Module({
  imports: [TerminusModule.forRoot({ logger: false }), CompileJobsModule],
  controllers: [OpsController],
  providers: [OpsService],
})
export class OpsModule {}
