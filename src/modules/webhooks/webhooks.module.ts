import { Module } from '@nestjs/common';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhooksAdminController } from './webhooks-admin.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  controllers: [WebhooksAdminController],
  providers: [WebhooksService, WebhooksRepository, WebhookDeliveryWorker],
  exports: [WebhooksService],
})
export class WebhooksModule {}
