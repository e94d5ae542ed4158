import { Module } from '@nestjs/common';
import { ContextModule } from 'src/modules/context/context.module';
import { PolicyModule } from 'src/modules/policy/policy.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { SupportModule } from 'src/modules/support/support.module';
import { ReplayController } from './replay.controller';
import { ReplayService } from './replay.service';

/** POST /v1/receipts/{id}/replay: re-runs a context or handoff receipt (docs/governance.md). */
@Module({
  imports: [ContextModule, SupportModule, ReceiptsModule, PolicyModule],
  controllers: [ReplayController],
  providers: [ReplayService],
})
export class ReplayModule {}
