import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { KEY_RESOLVER } from 'src/common/auth/principal';
import type { KeyResolver } from 'src/common/auth/principal';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';

/**
 * Start-up warnings about how the service is exposed (issue 16 "safe out of the box"). The
 * contract's defaults stay (bind 0.0.0.0, CORS *, no key); the operator is told what they mean.
 */
@Injectable()
export class SecurityNotices implements OnApplicationBootstrap {
  private readonly logger = new Logger('security');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(KEY_RESOLVER) private readonly keys: KeyResolver,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const line of securityNotices(this.config, await this.keys.keysInUse().catch(() => false))) this.logger.warn(line);
  }
}

export function securityNotices(config: AppConfig, storedKeys: boolean): string[] {
  const notices: string[] = [];
  if (!config.apiKey && !storedKeys) {
    const cors = config.corsOrigins.includes('*') ? ' With CORS_ORIGINS ["*"], any web page a user of this machine visits can read and delete memories through the browser.' : '';
    notices.push(
      `OPEN ACCESS: no API key is set (SERVICE_API_KEY) and no stored key exists. Anyone who can reach ${config.host}:${config.port} can read, write, ` +
        `export and delete every memory and call every operator endpoint.${cors} Set SERVICE_API_KEY or create keys (\`keys create\`); /readyz reports auth "open" meanwhile.`,
    );
  }
  if (config.apiKey && config.requireTenant) {
    notices.push(
      'SERVICE_API_KEY opens every tenant and every operator endpoint: tenants are separated only by the header the client sends. ' +
        'Give each tenant its own bound client key (`keys create --role client --tenant <id>`, docs/operations.md "Security model").',
    );
  }
  return notices;
}
