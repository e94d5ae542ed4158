import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS } from './config.schema';
import { renderConfigReference } from './config-docs';

describe('configuration reference', () => {
  it('docs/configuration.md is the generated reference (run `npm run cli -- config-docs`)', () => {
    const onDisk = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    expect(onDisk).toBe(renderConfigReference());
  });

  it('documents every setting of the contract table', () => {
    const contract = ['DATABASE_URL', 'HOST', 'PORT', 'DEBUG', 'COMPILER_TYPE', 'EMBEDDING_PROVIDER', 'EMBEDDING_DIMENSIONS', 'LLM_COMPILER_MODEL', 'DEFAULT_MAX_CONTEXT_TOKENS', 'API_KEY', 'RATE_LIMIT_RPM', 'RATE_LIMIT_STRATEGY', 'WEBHOOK_URL', 'WEBHOOK_TIMEOUT', 'COMPILE_JOB_RETENTION_HOURS', 'CORS_ORIGINS', 'REQUIRE_TENANT', 'TENANT_HEADER', 'ENABLE_SNAPSHOTS', 'STRICT_SCHEMA'];
    const names = SETTINGS.map((s) => s.name);
    for (const name of contract) expect(names).toContain(name);
    for (const name of names) expect(renderConfigReference()).toContain(`SERVICE_${name}`);
  });
});
