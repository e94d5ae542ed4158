import { Module } from '@nestjs/common';
import { PolicyModule } from 'src/modules/policy/policy.module';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { ReceiptsController } from './receipts.controller';
import { ReceiptsRepository } from './receipts.repository';
import { ReceiptsExportRepository } from './receipts-export.repository';
import { ReceiptsBulkService } from './receipts-bulk.service';
import { ReceiptsService } from './receipts.service';

@Module({
  imports: [PolicyModule, WebhooksModule],
  controllers: [ReceiptsController],
  providers: [ReceiptsService, ReceiptsBulkService, ReceiptsRepository, ReceiptsExportRepository],
  exports: [ReceiptsService, ReceiptsBulkService],
})
export class ReceiptsModule {}
