/**
 * `Retry-After` in whole seconds, between 1 and the window (compat.md: 1–60 for the one-minute
 * window). Rounded up so a client that waits exactly that long is not refused again.
 */
export function retryAfterSeconds(seconds: number, windowSeconds: number): number {
  const max = Math.max(1, Math.ceil(windowSeconds));
  if (!Number.isFinite(seconds)) return max;
  return Math.min(max, Math.max(1, Math.ceil(seconds)));
}
