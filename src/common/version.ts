import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root';

/** The service's version, read once from package.json: the one place it is written. */
export const SERVICE_VERSION: string = (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The memory-service API contract this service implements (/work/shared/contract): the wire
 * format, not the release. Named in the OpenAPI description; the release is SERVICE_VERSION.
 */
export const CONTRACT_VERSION = '0.6.1';
