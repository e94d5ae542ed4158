import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root';

/** The service's version, read once from package.json: the one place it is written. */
export const SERVICE_VERSION: string = (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
