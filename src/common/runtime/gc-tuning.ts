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
 * Allocation-site pretenuring is off too. V8 watches how many objects from each allocation site
 * survive a scavenge, and when most of them do, it allocates that site's objects straight into
 * the old generation. A request's rows, candidates and rendered lines live for the whole request
 * (15–30 ms). Young collections run about every 50 ms under load, so many of them find a request
 * in flight, and its sites look long-lived. Their objects are then born old and die young, and
 * only a full collection (Mark-Compact, 40–60 ms of marking spread over the requests in flight)
 * can reclaim them. With pretenuring off, a scavenge frees them. On LoCoMo context requests, in
 * one interleaved run of both builds (bench/quality/ab.ts), full collections fell from 55 to 30
 * and GC time per request from 2.7 to 1.7 ms (bench/README.md, "Less garbage for the full
 * collections").
 *
 * Set at start, before the application allocates; V8 reads these flags each time it decides
 * (to post the task, to pretenure a site). An unknown flag (one a later V8 renamed) only makes
 * V8 print "unrecognized flag": it cannot stop a start.
 */
export const V8_GC_FLAGS = ['--no-minor-gc-task', '--no-allocation-site-pretenuring'] as const;

export function tuneGarbageCollection(): void {
  for (const flag of V8_GC_FLAGS) setFlagsFromString(flag);
}
