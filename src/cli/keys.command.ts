import type { AppConfig } from 'src/config/app-config';
import { openDatabase } from 'src/db/data-source';
import { ApiKeysRepository } from 'src/modules/api-keys/api-keys.repository';
import { ApiKeysService } from 'src/modules/api-keys/api-keys.service';
import { ROLES } from 'src/modules/api-keys/dto/api-key.dto';
import type { Role } from 'src/common/auth/principal';
import { parseCliArgs } from './cli-args';
import { progress, result } from './operator-services';

export const KEYS_USAGE = [
  'keys create --role client|operator [--tenant TENANT] [--name NAME]   prints the new key once (JSON)',
  'keys list                                                          ids and metadata, never secrets',
  'keys rotate ID                                                     a new secret for the key',
  'keys revoke ID                                                     stops the key on every replica within seconds',
].join('\n');

/** Stored API keys from the command line: the same service as the /admin/api-keys endpoints. */
export async function keysCommand(config: AppConfig, args: string[]): Promise<number> {
  const { values, positionals } = parseCliArgs(args, { role: { type: 'string' }, tenant: { type: 'string' }, name: { type: 'string' } });
  const [action, id] = positionals;
  const db = await openDatabase(config);
  progress(`database: ${db.engine} ${db.location}`);
  try {
    const keys = new ApiKeysService(db.dataSource, new ApiKeysRepository());
    switch (action) {
      case 'create': {
        if (!ROLES.includes(values.role as Role)) throw new Error('--role must be client or operator');
        result(JSON.stringify(await keys.create({ role: values.role as Role, tenantId: values.tenant ?? null, name: values.name })));
        progress('store the key now: it is not shown again');
        return 0;
      }
      case 'list':
        for (const k of await keys.list()) result(JSON.stringify(k));
        return 0;
      case 'rotate':
      case 'revoke': {
        if (!id) throw new Error(`keys ${action} needs the key id`);
        result(JSON.stringify(action === 'rotate' ? await keys.rotate(id) : await keys.revoke(id)));
        return 0;
      }
      default:
        throw new Error(`unknown keys action ${JSON.stringify(action ?? '')}: use create, list, rotate or revoke`);
    }
  } finally {
    await db.close();
  }
}
