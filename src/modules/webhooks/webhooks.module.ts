import { Module } from '@nestjs/common';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookRetention } from './webhook-retention';
import { WebhooksAdminController } from './webhooks-admin.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  controllers: [WebhooksAdminController],
  providers: [WebhooksService, WebhooksRepository, WebhookDeliveryWorker, WebhookRetention],
  exports: [WebhooksService],
})
export class WebhooksModule {}
