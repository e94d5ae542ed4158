import { MigrationInterface, QueryRunner } from 'typeorm';

/** Revision 0007: snapshot metadata; the data lives under the hidden subject `_snapshot/{name}/v{version}`. */
export class Snapshots1700000000007 implements MigrationInterface {
  name = 'Snapshots1700000000007';
  readonly revision = '0007_snapshots';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE snapshots (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        version integer NOT NULL,
        source_subject_id varchar(256) NOT NULL,
        snapshot_subject_id varchar(300) NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        episode_count integer NOT NULL DEFAULT 0,
        memory_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ux_snapshots_name_version UNIQUE (name, version)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE snapshots`);
  }
}
