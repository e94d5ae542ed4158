import { createWriteStream } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { operatorScope } from 'src/common/db/tenant-scope';
import type { AppConfig } from 'src/config/app-config';
import { parseLossless } from 'src/modules/admin/python-json';
import { parseCliArgs } from './cli-args';
import { progress, result, withOperatorServices } from './operator-services';

export const EXPORT_USAGE = 'export <subject_id> [--tenant T] [--out FILE]   (stdout without --out)';
export const IMPORT_USAGE = 'import <file> [--target-subject S] [--target-tenant T] [--no-preserve-ids]';

const REPORT_EVERY_BYTES = 16 * 1024 * 1024;

/**
 * Streams a subject's export document (the same document as GET /admin/export) to a file or
 * stdout. A file is written under a temporary name and renamed when complete, so a failed export
 * never leaves a truncated document behind.
 */
export async function exportCommand(config: AppConfig, args: string[]): Promise<number> {
  const { values, positionals } = parseCliArgs(args, { tenant: { type: 'string' }, out: { type: 'string' } });
  const [subjectId] = positionals;
  if (!subjectId) throw new Error(`usage: ${EXPORT_USAGE}`);
  const file = values.out;
  const partial = file ? `${file}.partial` : null;
  let bytes = 0;
  let reported = 0;
  const counter = new PassThrough();
  counter.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes - reported >= REPORT_EVERY_BYTES) {
      reported = bytes;
      progress(`… ${(bytes / 1048576).toFixed(0)} MiB written`);
    }
  });
  const sink: Writable = partial ? createWriteStream(partial) : process.stdout;
  const done = pipeline(counter, sink, { end: partial !== null });
  progress(`exporting subject ${JSON.stringify(subjectId)}${values.tenant ? ` of tenant ${values.tenant}` : ''}…`);
  try {
    const counts = await withOperatorServices(config, ({ admin }) => admin.exportSubject(operatorScope(values.tenant), subjectId, counter));
    await done;
    if (partial) await rename(partial, file!);
    progress(`exported ${counts.episodes} episode(s), ${counts.memories} memory(ies), ${bytes} bytes${file ? ` to ${file}` : ''}`);
    return 0;
  } catch (err) {
    counter.destroy();
    await done.catch(() => undefined);
    if (partial) await rm(partial, { force: true });
    throw err;
  }
}

/** Imports a document file with the same checks as POST /admin/import (version, checksum, ids). */
export async function importCommand(config: AppConfig, args: string[]): Promise<number> {
  const { values, positionals } = parseCliArgs(args, { 'target-subject': { type: 'string' }, 'target-tenant': { type: 'string' }, 'no-preserve-ids': { type: 'boolean' } });
  const [file] = positionals;
  if (!file) throw new Error(`usage: ${IMPORT_USAGE}`);
  progress(`reading ${file}…`);
  let document: unknown;
  try {
    document = parseLossless(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file} is not a JSON document: ${(err as Error).message}`);
  }
  progress('verifying and importing…');
  const imported = await withOperatorServices(config, ({ admin }) =>
    admin.importDocument(operatorScope(), document, {
      targetSubjectId: values['target-subject'],
      targetTenantId: values['target-tenant'],
      preserveIds: !values['no-preserve-ids'],
    }),
  );
  progress(`imported ${imported.episodes_imported} episode(s), ${imported.memories_imported} memory(ies) into ${JSON.stringify(imported.subject_id)}`);
  result(JSON.stringify(imported, null, 2));
  return 0;
}
