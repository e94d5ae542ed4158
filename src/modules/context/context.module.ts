import { Module } from '@nestjs/common';
import { MemoriesModule } from 'src/modules/memories/memories.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { ContextController } from './context.controller';
import { ContextRepository } from './context.repository';
import { ContextService } from './context.service';

@Module({
  imports: [MemoriesModule, ReceiptsModule],
  controllers: [ContextController],
  providers: [ContextService, ContextRepository],
  exports: [ContextService],
})
export class ContextModule {}
