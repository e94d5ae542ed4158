import { Module } from '@nestjs/common';
import { ModelsModule } from 'src/modules/models/models.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { ContextController } from './context.controller';
import { ContextRepository } from './context.repository';
import { ContextService } from './context.service';

@Module({
  imports: [ModelsModule, ReceiptsModule],
  controllers: [ContextController],
  providers: [ContextService, ContextRepository],
  exports: [ContextService],
})
export class ContextModule {}
