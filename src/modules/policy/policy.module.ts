import { Module } from '@nestjs/common';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { PolicyController } from './policy.controller';
import { PolicyRepository } from './policy.repository';
import { PolicyService } from './policy.service';

@Module({
  imports: [WebhooksModule],
  controllers: [PolicyController],
  providers: [PolicyService, PolicyRepository],
  exports: [PolicyService],
})
export class PolicyModule {}
