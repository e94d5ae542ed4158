/** Node socket errors of a database that cannot be reached (refused, reset, unreachable, timed out). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that is going away or not taking connections: class 08 (connection
 * exception), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300
 * too_many_connections; and the time limits of data-source.ts: 57014 query_canceled (statement
 * timeout), 25P03 idle_in_transaction_session_timeout — the request took longer than the
 * database allows, and a retry later may pass.
 */
const SQLSTATES = /^(08\w{3}|57P0[123]|53300|57014|25P03)$/;

/**
 * Messages of node-postgres and the server for a connection that broke or could not be made.
 * Anchored at the start: other driver messages quote user input, which must not match.
 */
const MESSAGES = /^(Query read timeout|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command|connect (ETIMEDOUT|ECONNREFUSED))/i;

/**
 * True when `e` says the database is unreachable rather than that the request was wrong: the
 * global filter answers those with 503 `service_unavailable` (clients retry later) instead of a
 * 500. Looks through TypeORM's QueryFailedError (`driverError`) and AggregateError (a refused
 * connect to every address of a host).
 */
export function isDatabaseUnavailable(e: unknown, depth = 0): boolean {
  if (!(e instanceof Error) || depth > 3) return false;
  const { code, driverError, errors } = e as Error & { code?: unknown; driverError?: unknown; errors?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SQLSTATES.test(code))) return true;
  if (MESSAGES.test(e.message)) return true;
  if (driverError !== undefined && isDatabaseUnavailable(driverError, depth + 1)) return true;
  return Array.isArray(errors) && errors.some((x) => isDatabaseUnavailable(x, depth + 1));
}
