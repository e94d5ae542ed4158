import type { AppConfig } from 'src/config/app-config';
import { TenantScope } from 'src/common/db/tenant-scope';
import { openDatabase } from 'src/db/data-source';
import { WebhooksRepository } from 'src/modules/webhooks/webhooks.repository';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';

const err = (s: string) => process.stderr.write(s + '\n');
const out = (s: string) => process.stdout.write(s + '\n');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const WEBHOOKS_USAGE = 'webhooks requeue-dead                  re-queue every dead letter\nwebhooks requeue-dead --id ID [--id ID]…  only these events\nwebhooks requeue-dead --tenant TENANT    only this tenant\'s dead letters';

function parseArgs(args: string[]): { action: string | undefined; ids: string[]; tenant: string | null } {
  const [action, ...rest] = args;
  const ids: string[] = [];
  let tenant: string | null = null;
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    const value = rest[i + 1];
    if ((flag === '--id' || flag === '--tenant') && (value === undefined || value.startsWith('--'))) throw new Error(`${flag} needs a value`);
    if (flag === '--id') {
      if (!UUID.test(value)) throw new Error(`--id must be an event id (UUID), got ${JSON.stringify(value)}`);
      ids.push(value.toLowerCase());
      i++;
    } else if (flag === '--tenant') {
      tenant = value;
      i++;
    } else throw new Error(`unknown option ${JSON.stringify(flag)}`);
  }
  return { action, ids, tenant };
}

/** `webhooks requeue-dead [--id ID]… [--tenant T]`: the operator redrive of the dead-letter queue. */
export async function webhooksCommand(config: AppConfig, args: string[]): Promise<number> {
  const { action, ids, tenant } = parseArgs(args);
  if (action !== 'requeue-dead') throw new Error(`unknown webhooks action ${JSON.stringify(action ?? '')}: use requeue-dead`);
  const db = await openDatabase(config);
  err(`database: ${db.engine} ${db.location}`);
  try {
    const service = new WebhooksService(config, db.dataSource, new WebhooksRepository());
    const unique = [...new Set(ids)];
    err(unique.length > 0 ? `re-queueing ${unique.length} listed dead letter(s)…` : `re-queueing all dead letters${tenant ? ` of tenant ${tenant}` : ''}…`);
    const total = await service.requeueDeadLettersInBatches(TenantScope.of(tenant), unique.length > 0 ? unique : null, (batch, sum) => err(`  re-queued ${batch} (${sum} so far)`));
    if (unique.length > total) err(`${unique.length - total} listed event(s) were not dead letters (unknown, pending or delivered) and were left alone`);
    if (config.webhookUrl === '') err('note: SERVICE_WEBHOOK_URL is empty here; the events are delivered by processes that have it set');
    out(`requeued ${total}`);
    return 0;
  } finally {
    await db.close();
  }
}
