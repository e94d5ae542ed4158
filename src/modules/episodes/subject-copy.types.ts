/**
 * Shapes a subject copy (snapshot create and restore) passes between the rooms that each copy
 * their own rows: episodes first, then memories, then receipts, in the caller's transaction.
 */

/**
 * Old → new episode ids of one copy: a temporary table (old_id, new_id) the episodes room fills
 * and drops at commit, so memories can follow `source_episode_ids` to the copies without the ids
 * passing through the service (a snapshot of any size costs the service no memory).
 */
export interface EpisodeIdMap {
  readonly table: string;
}

/**
 * What a restore adds to a plain copy (contract restore rules): the snapshot named in each row,
 * and one shift for every timestamp, in whole microseconds (bigint as text, exact), chosen by
 * the caller so the snapshot's newest episode (newest memory when it has none) lands on `now()`.
 */
export interface RestoreMarks {
  snapshotId: string;
  shiftMicros: string;
}
