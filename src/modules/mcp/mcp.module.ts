import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ContextModule } from 'src/modules/context/context.module';
import { EpisodesModule } from 'src/modules/episodes/episodes.module';
import { MemoriesModule } from 'src/modules/memories/memories.module';
import { PolicyModule } from 'src/modules/policy/policy.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { SubjectsModule } from 'src/modules/subjects/subjects.module';
import { SupportModule } from 'src/modules/support/support.module';
import { McpOriginMiddleware } from './mcp-origin.middleware';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

/** The Model Context Protocol face of the service: /mcp over HTTP, and the stdio server (cli `mcp`). */
@Module({
  imports: [EpisodesModule, MemoriesModule, ContextModule, SupportModule, SubjectsModule, PolicyModule, ReceiptsModule],
  controllers: [McpController],
  providers: [McpService],
  exports: [McpService],
})
export class McpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(McpOriginMiddleware).forRoutes(McpController);
  }
}
