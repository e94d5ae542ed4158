import { Global, Module } from '@nestjs/common';
import { KEY_RESOLVER, NO_STORED_KEYS } from 'src/common/auth/principal';
import { SecurityNotices } from './security-notices';

/** Stored API keys (docs/operations.md "Security model"); global so the gate and probes see them. */
@Global()
@Module({
  providers: [{ provide: KEY_RESOLVER, useValue: NO_STORED_KEYS }, SecurityNotices],
  exports: [KEY_RESOLVER],
})
export class ApiKeysModule {}
