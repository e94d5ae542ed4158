import { Module } from '@nestjs/common';
import { PolicyModule } from 'src/modules/policy/policy.module';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { ReceiptsController } from './receipts.controller';
import { ReceiptsRepository } from './receipts.repository';
import { ReceiptsService } from './receipts.service';

@Module({
  imports: [PolicyModule, WebhooksModule],
  controllers: [ReceiptsController],
  providers: [ReceiptsService, ReceiptsRepository],
  exports: [ReceiptsService],
})
export class ReceiptsModule {}
