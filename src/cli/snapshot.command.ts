import { operatorScope } from 'src/common/db/tenant-scope';
import type { AppConfig } from 'src/config/app-config';
import type { SnapshotDto } from 'src/modules/snapshots/dto/snapshot.dto';
import { parseCliArgs } from './cli-args';
import { progress, result, withOperatorServices } from './operator-services';

export const SNAPSHOT_USAGE = [
  'snapshot create <subject_id> --name NAME [--tenant T] [--metadata JSON]',
  'snapshot list [--tenant T]',
  'snapshot restore <snapshot_id> --target SUBJECT [--tenant T]',
  'snapshot restore --name NAME --target SUBJECT [--tenant T]   (latest version)',
].join('\n');

/**
 * `snapshot create` copies a subject under `_snapshot/{name}/v{version}` (the contract has no
 * endpoint for creating snapshots); `list` and `restore` mirror the admin endpoints. Results are
 * JSON on stdout, progress on stderr.
 */
export async function snapshotCommand(config: AppConfig, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseCliArgs(rest, { name: { type: 'string' }, tenant: { type: 'string' }, metadata: { type: 'string' }, target: { type: 'string' } });
  const scope = operatorScope(values.tenant);
  switch (action) {
    case 'create': {
      const [subjectId] = positionals;
      if (!subjectId || !values.name) throw new Error(`usage: ${SNAPSHOT_USAGE.split('\n')[0]}`);
      const metadata = parseMetadata(values.metadata);
      progress(`snapshotting subject ${JSON.stringify(subjectId)}${values.tenant ? ` of tenant ${values.tenant}` : ''} as ${JSON.stringify(values.name)}…`);
      const snapshot = await withOperatorServices(config, ({ snapshots }) => snapshots.create(scope, subjectId, values.name!, metadata));
      progress(`created ${snapshot.snapshot_subject_id}: ${snapshot.episode_count} episode(s), ${snapshot.memory_count} memory(ies)`);
      result(JSON.stringify(snapshot, null, 2));
      return 0;
    }
    case 'list': {
      const list = await withOperatorServices(config, ({ snapshots }) => snapshots.list(scope));
      progress(`${list.snapshots.length} snapshot(s)`);
      result(JSON.stringify(list, null, 2));
      return 0;
    }
    case 'restore': {
      const [snapshotId] = positionals;
      if (!values.target || (!snapshotId && !values.name)) throw new Error(`usage: ${SNAPSHOT_USAGE.split('\n')[2]}`);
      progress(`restoring ${snapshotId ?? `latest ${JSON.stringify(values.name)}`} into ${JSON.stringify(values.target)}…`);
      const restored = await withOperatorServices(config, ({ snapshots }) =>
        snapshotId ? snapshots.restoreById(scope, snapshotId, values.target!) : snapshots.restoreByName(scope, values.name!, values.target!),
      );
      progress(`restored ${restored.episodes_restored} episode(s), ${restored.memories_restored} memory(ies)`);
      result(JSON.stringify(restored, null, 2));
      return 0;
    }
    default:
      throw new Error(`unknown snapshot action ${JSON.stringify(action ?? '')}: use create, list or restore`);
  }
}

function parseMetadata(text: string | undefined): SnapshotDto['metadata'] {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`--metadata must be a JSON object: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('--metadata must be a JSON object');
  return value as SnapshotDto['metadata'];
}
