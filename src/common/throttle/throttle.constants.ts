/** The contract's limit is per minute: one fixed (distributed) or sliding (memory) window of 60 s. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
