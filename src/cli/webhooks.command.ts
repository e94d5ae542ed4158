import type { AppConfig } from 'src/config/app-config';
import { operatorScope } from 'src/common/db/tenant-scope';
import { openDatabase } from 'src/db/data-source';
import { WEBHOOK_PRUNE_BATCH, WEBHOOK_PRUNE_MAX_BATCHES, WebhookRetention } from 'src/modules/webhooks/webhook-retention';
import { WebhooksRepository } from 'src/modules/webhooks/webhooks.repository';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { parseCliArgs } from './cli-args';

const err = (s: string) => process.stderr.write(s + '\n');
const out = (s: string) => process.stdout.write(s + '\n');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const WEBHOOKS_USAGE =
  'webhooks requeue-dead                  re-queue every dead letter\nwebhooks requeue-dead --id ID [--id ID]…  only these events\nwebhooks requeue-dead --tenant TENANT    only this tenant\'s dead letters\n' +
  'webhooks prune [--days N] [--dead-letter-days N]  delete what retention would, now, until done (default: the retention settings)';

function parseWebhookArgs(args: string[]): { action: string | undefined; ids: string[]; tenant: string | null; days: number | null; deadLetterDays: number | null } {
  const [action, ...rest] = args;
  const { values } = parseCliArgs(rest, {
    id: { type: 'string', multiple: true },
    tenant: { type: 'string' },
    ...(action === 'prune' ? { days: { type: 'string' }, 'dead-letter-days': { type: 'string' } } : {}),
  } as const);
  const v = values as { id?: string[]; tenant?: string; days?: string; 'dead-letter-days'?: string };
  const dayCount = (flag: string, value: string | undefined) => {
    if (value === undefined) return null;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0 || n > 3650) throw new Error(`${flag} must be a number of days from 0 to 3650, got ${JSON.stringify(value)}`);
    return n;
  };
  const ids = (v.id ?? []).map((id) => {
    if (!UUID.test(id)) throw new Error(`--id must be an event id (UUID), got ${JSON.stringify(id)}`);
    return id.toLowerCase();
  });
  return { action, ids, tenant: v.tenant ?? null, days: dayCount('--days', v.days), deadLetterDays: dayCount('--dead-letter-days', v['dead-letter-days']) };
}

/** `webhooks requeue-dead [--id ID]… [--tenant T]`: the operator redrive of the dead-letter queue. */
export async function webhooksCommand(config: AppConfig, args: string[]): Promise<number> {
  const { action, ids, tenant, days, deadLetterDays } = parseWebhookArgs(args);
  if (action === 'prune') return prune({ ...config, webhookRetentionDays: days ?? config.webhookRetentionDays, webhookDeadLetterRetentionDays: deadLetterDays ?? config.webhookDeadLetterRetentionDays });
  if (action !== 'requeue-dead') throw new Error(`unknown webhooks action ${JSON.stringify(action ?? '')}: use requeue-dead or prune`);
  const db = await openDatabase(config);
  err(`database: ${db.engine} ${db.location}`);
  try {
    const service = new WebhooksService(config, db.dataSource, new WebhooksRepository());
    const unique = [...new Set(ids)];
    err(unique.length > 0 ? `re-queueing ${unique.length} listed dead letter(s)…` : `re-queueing all dead letters${tenant ? ` of tenant ${tenant}` : ''}…`);
    const total = await service.requeueDeadLettersInBatches(operatorScope(tenant ?? undefined), unique.length > 0 ? unique : null, (batch, sum) => err(`  re-queued ${batch} (${sum} so far)`));
    if (unique.length > total) err(`${unique.length - total} listed event(s) were not dead letters (unknown, pending or delivered) and were left alone`);
    if (config.webhookUrl === '') err('note: SERVICE_WEBHOOK_URL is empty here; the events are delivered by processes that have it set');
    out(`requeued ${total}`);
    return 0;
  } finally {
    await db.close();
  }
}

/**
 * `webhooks prune`: what the 10-minute retention run does, repeated until nothing is left past
 * the retention (after an upgrade from a version without retention the outbox may hold months,
 * which the scheduled runs would take days to clear). Same batches: the service keeps serving.
 */
async function prune(config: AppConfig): Promise<number> {
  const db = await openDatabase(config);
  err(`database: ${db.engine} ${db.location}`);
  try {
    const retention = new WebhookRetention(config, db.dataSource, new WebhooksRepository());
    err(`pruning delivered events older than ${config.webhookRetentionDays || '∞ (kept)'} day(s), dead letters older than ${config.webhookDeadLetterRetentionDays || '∞ (kept)'} day(s)…`);
    const total = { delivered: 0, dead_letter: 0 };
    for (;;) {
      const run = await retention.runOnce();
      if (run === null) {
        err('another process holds the prune lock (a scheduled run); try again when it ends');
        return 1;
      }
      total.delivered += run.delivered;
      total.dead_letter += run.dead_letter;
      if (run.delivered + run.dead_letter > 0) err(`  deleted ${run.delivered} delivered, ${run.dead_letter} dead letter(s) (${total.delivered + total.dead_letter} so far)`);
      // A run stops at its batch cap per status; anything less means that status is done.
      const cap = WEBHOOK_PRUNE_BATCH * WEBHOOK_PRUNE_MAX_BATCHES;
      if (run.delivered < cap && run.dead_letter < cap) break;
    }
    out(`pruned ${total.delivered} delivered, ${total.dead_letter} dead letter(s)`);
    return 0;
  } finally {
    await db.close();
  }
}

