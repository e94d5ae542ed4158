import { setFlagsFromString } from 'node:v8';

/**
 * V8's "minor GC task" starts a young-generation collection early (at about 80% of the nursery)
 * as a task meant for idle time. Node has no idle time to give it: the task runs at the next turn
 * of the event loop, which in a request handler is its next wait on the database. There the
 * request's own rows and candidates are still alive, so the collection copies them and the
 * request waits through it: a context request that writes a receipt met a scavenge inside that
 * one INSERT in 47–56 of 280 requests with the task, 10–14 without (bench/README.md, "Receipt
 * cost"), and the same work ran 10% fewer scavenges. Without the task a scavenge runs when the
 * nursery is actually full, on the allocation that fills it, wherever that falls.
 *
 * Set at start, before the application allocates; V8 reads the flag each time it would post the
 * task. An unknown flag (one a later V8 renamed) only makes V8 print "unrecognized flag": it cannot stop a start.
 */
export const V8_GC_FLAGS = ['--no-minor-gc-task'] as const;

export function tuneGarbageCollection(): void {
  for (const flag of V8_GC_FLAGS) setFlagsFromString(flag);
}
