import { join } from 'node:path';
import { runClusterPrimary } from './cluster/cluster-primary';
import { ConfigError, readConfig } from './config/app-config';

/**
 * Entry point. SERVICE_WORKERS > 1: this process only forks and supervises the HTTP workers
 * (src/cluster), each running src/bootstrap; it checks the configuration first, so a bad
 * variable stops the start once instead of failing every worker, and loads no application code
 * (the Nest application would cost the primary ~90 MB for nothing). Otherwise this process is
 * the service.
 */
let workers = 1;
let logLevel = 'info';
try {
  ({ workers, logLevel } = readConfig());
} catch (err) {
  process.stderr.write(`memory-service failed to start: ${err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
if (workers > 1) runClusterPrimary({ workers, logLevel, workerScript: join(__dirname, 'bootstrap.js') });
else void import('./bootstrap.js');
