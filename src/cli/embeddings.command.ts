import type { AppConfig } from 'src/config/app-config';
import { openDatabase } from 'src/db/data-source';
import { runBackfill, withBackfillLock } from 'src/modules/memories/embeddings/embedding-backfill';
import { EmbeddingBackfillRepository } from 'src/modules/memories/embeddings/embedding-backfill.repository';
import { createEmbeddingProvider } from 'src/modules/models/embedding-provider';
import { ModelGateway } from 'src/modules/models/model-gateway';
import { parseCliArgs } from './cli-args';
import { progress, result } from './operator-services';

export const EMBEDDINGS_USAGE = 'embeddings backfill [--limit N]';

/**
 * `embeddings backfill [--limit N]`: embeds memories stored without an embedding (the provider
 * was down when they were compiled) with the configured provider, oldest first. Progress on
 * stderr, the outcome on stdout; exit 1 when the provider failed and memories remain.
 */
export async function embeddingsCommand(config: AppConfig, args: string[]): Promise<number> {
  const [action] = args;
  if (action !== 'backfill') throw new Error(`unknown embeddings action ${JSON.stringify(action ?? '')}: use backfill`);
  const limit = parseLimit(parseCliArgs(args.slice(1), { limit: { type: 'string' } }).values.limit);
  const provider = createEmbeddingProvider(config, ModelGateway.fromConfig(config));
  if (provider === null) throw new Error('SERVICE_EMBEDDING_PROVIDER=none: there is no provider to embed with');
  const db = await openDatabase(config);
  progress(`database: ${db.engine} ${db.location}`);
  progress(`provider: ${provider.name}, ${provider.dimensions} dimensions`);
  try {
    const dedicated = db.engine === 'postgres' && config.databasePoolSize > 1;
    const outcome = await withBackfillLock(db.dataSource, dedicated, () =>
      runBackfill(db.dataSource, new EmbeddingBackfillRepository(), provider, {
        batchSize: config.embeddingBatchSize,
        limit,
        progress: (done, total) => progress(`  embedded ${done}/${total}`),
      }),
    );
    if (outcome === null) {
      progress('another process is running the embedding backfill; try again later');
      return 1;
    }
    result(`embedded ${outcome.embedded} memories, ${outcome.empty} without text to embed, ${outcome.remaining} still flagged`);
    if (outcome.error !== null) {
      progress(`stopped: ${outcome.error}`);
      return 1;
    }
    return 0;
  } finally {
    await db.close();
  }
}

function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new Error(`--limit needs a positive whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}
