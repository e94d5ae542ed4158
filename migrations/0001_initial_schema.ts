import { MigrationInterface, QueryRunner } from 'typeorm';

/** Revision 0001: episodes and memories, the two tables of contract 0.1.0. */
export class InitialSchema1700000000001 implements MigrationInterface {
  name = 'InitialSchema1700000000001';
  readonly revision = '0001_initial_schema';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE episodes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        subject_id varchar(256) NOT NULL,
        source varchar(256) NOT NULL,
        type varchar(128) NOT NULL,
        payload jsonb NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        provenance jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_compiled_at timestamptz
      )`);
    await q.query(`CREATE INDEX ix_episodes_subject_created ON episodes (subject_id, created_at)`);
    await q.query(`
      CREATE TABLE memories (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        subject_id varchar(256) NOT NULL,
        kind varchar(32) NOT NULL,
        content text NOT NULL,
        summary text NOT NULL DEFAULT '',
        confidence double precision NOT NULL DEFAULT 1.0,
        valid_from timestamptz NOT NULL DEFAULT now(),
        valid_to timestamptz,
        source_episode_ids uuid[] NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        status varchar(16) NOT NULL DEFAULT 'active',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_memories_subject_status_kind ON memories (subject_id, status, kind)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE memories`);
    await q.query(`DROP TABLE episodes`);
  }
}
