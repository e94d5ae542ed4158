import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0014: context governance (docs/governance.md).
 * - `memories.sensitivity_labels`: what a tenant's policy bundle may keep from some callers.
 * - `receipts`: one immutable row per context assembly. The body is the receipt as served and
 *   signed; a trigger refuses every UPDATE, so no code path (or operator typo) can change a
 *   receipt after the fact. DELETE stays possible: a subject's receipts go with the subject.
 * - `policy_bundles`: the YAML policy of each tenant (NULL tenant: the single-tenant bundle).
 * - `memory_revisions`: the state a memory had before each in-place change of what a reader
 *   sees (content, status, validity, labels...), with the transaction time it stopped being
 *   current, so an as-of read reconstructs any past state. Filled by a trigger so that every
 *   writer (compile supersession, label edits, single-memory edits) is covered; an embedding
 *   backfill changes nothing a reader sees and is not recorded. A deleted memory takes its
 *   revisions with it (deletion keeps no copy of the content).
 */
export class Governance1700000000014 implements MigrationInterface {
  name = 'Governance1700000000014';
  readonly revision = '0014_governance';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE memories ADD COLUMN sensitivity_labels varchar(64)[] NOT NULL DEFAULT '{}'`);

    await q.query(`
      CREATE TABLE receipts (
        id varchar(26) PRIMARY KEY,
        tenant_id varchar(256),
        subject_id varchar(256) NOT NULL,
        mode varchar(16) NOT NULL,
        parent_receipt_id varchar(256),
        body jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_receipts_tenant_subject_id ON receipts (tenant_id, subject_id, id)`);
    await q.query(`CREATE INDEX ix_receipts_tenant_id ON receipts (tenant_id, id)`);
    await q.query(`
      CREATE FUNCTION receipts_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'receipts are immutable' USING ERRCODE = 'object_not_in_prerequisite_state';
      END $$`);
    await q.query(`CREATE TRIGGER receipts_immutable BEFORE UPDATE ON receipts FOR EACH ROW EXECUTE FUNCTION receipts_refuse_update()`);

    await q.query(`
      CREATE TABLE policy_bundles (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(256),
        yaml text NOT NULL,
        hash char(64) NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_policy_bundles_tenant ON policy_bundles ((coalesce(tenant_id, '')))`);

    await q.query(`
      CREATE TABLE memory_revisions (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        memory_id uuid NOT NULL,
        tenant_id varchar(256),
        subject_id varchar(256) NOT NULL,
        kind varchar(32) NOT NULL,
        content text NOT NULL,
        summary text NOT NULL,
        confidence double precision NOT NULL,
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        source_episode_ids uuid[] NOT NULL,
        metadata jsonb NOT NULL,
        status varchar(16) NOT NULL,
        attribute_key varchar(256),
        superseded_by uuid,
        sensitivity_labels varchar(64)[] NOT NULL,
        recorded_until timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX ix_memory_revisions_memory ON memory_revisions (memory_id, recorded_until)`);
    await q.query(`CREATE INDEX ix_memory_revisions_tenant_subject ON memory_revisions (tenant_id, subject_id)`);
    await q.query(`
      CREATE FUNCTION memories_keep_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO memory_revisions (memory_id, tenant_id, subject_id, kind, content, summary, confidence, valid_from, valid_to,
          source_episode_ids, metadata, status, attribute_key, superseded_by, sensitivity_labels, recorded_until)
        VALUES (OLD.id, OLD.tenant_id, OLD.subject_id, OLD.kind, OLD.content, OLD.summary, OLD.confidence, OLD.valid_from, OLD.valid_to,
          OLD.source_episode_ids, OLD.metadata, OLD.status, OLD.attribute_key, OLD.superseded_by, OLD.sensitivity_labels, now());
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER memories_revision AFTER UPDATE ON memories FOR EACH ROW
      WHEN ((OLD.kind, OLD.content, OLD.summary, OLD.confidence, OLD.valid_from, OLD.valid_to, OLD.source_episode_ids, OLD.metadata,
             OLD.status, OLD.attribute_key, OLD.superseded_by, OLD.sensitivity_labels, OLD.subject_id)
        IS DISTINCT FROM (NEW.kind, NEW.content, NEW.summary, NEW.confidence, NEW.valid_from, NEW.valid_to, NEW.source_episode_ids, NEW.metadata,
             NEW.status, NEW.attribute_key, NEW.superseded_by, NEW.sensitivity_labels, NEW.subject_id))
      EXECUTE FUNCTION memories_keep_revision()`);
    await q.query(`
      CREATE FUNCTION memories_drop_revisions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM memory_revisions WHERE memory_id = OLD.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER memories_drop_revisions AFTER DELETE ON memories FOR EACH ROW EXECUTE FUNCTION memories_drop_revisions()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER memories_drop_revisions ON memories`);
    await q.query(`DROP FUNCTION memories_drop_revisions()`);
    await q.query(`DROP TRIGGER memories_revision ON memories`);
    await q.query(`DROP FUNCTION memories_keep_revision()`);
    await q.query(`DROP TABLE memory_revisions`);
    await q.query(`DROP TABLE policy_bundles`);
    await q.query(`DROP TRIGGER receipts_immutable ON receipts`);
    await q.query(`DROP FUNCTION receipts_refuse_update()`);
    await q.query(`DROP TABLE receipts`);
    await q.query(`ALTER TABLE memories DROP COLUMN sensitivity_labels`);
  }
}
