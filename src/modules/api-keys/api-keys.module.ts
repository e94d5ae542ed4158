import { Global, Module } from '@nestjs/common';
import { KEY_RESOLVER } from 'src/common/auth/principal';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { SecurityNotices } from './security-notices';

/** Stored API keys (docs/operations.md "Security model"); global so the gate and probes see them. */
@Global()
@Module({
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeysRepository, SecurityNotices, { provide: KEY_RESOLVER, useExisting: ApiKeysService }],
  exports: [KEY_RESOLVER, ApiKeysService],
})
export class ApiKeysModule {}
