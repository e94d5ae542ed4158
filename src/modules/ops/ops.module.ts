import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OpsController } from './ops.controller';
import { OpsRepository } from './ops.repository';
import { OpsService } from './ops.service';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [OpsController],
  providers: [OpsService, OpsRepository],
})
export class OpsModule {}
