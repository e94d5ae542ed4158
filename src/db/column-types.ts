import { getMetadataArgsStorage, type ColumnOptions } from 'typeorm';

/**
 * Column shapes the migrations repeat, spelled once for the entities, so an entity reads like the
 * migration's DDL and TypeORM's schema builder sees what the migrations made
 * (test/e2e/typeorm-schema.e2e-spec.ts).
 */

/** `varchar(256)`, the bound of every subject, session, tenant and key id. */
export const ID = { type: 'varchar', length: 256 } as const satisfies ColumnOptions;

/** `varchar(256)` that may be NULL: `tenant_id` (NULL = the legacy, shared rows of contract rule 4) and optional ids. */
export const NULLABLE_ID = { type: 'varchar', length: 256, nullable: true } as const satisfies ColumnOptions;

/** `timestamptz NOT NULL DEFAULT now()`. */
export const NOW = { type: 'timestamptz', default: () => 'now()' } as const satisfies ColumnOptions;

/** `timestamptz` that may be NULL. */
export const NULLABLE_TIME = { type: 'timestamptz', nullable: true } as const satisfies ColumnOptions;

/** `jsonb NOT NULL DEFAULT '{}'::jsonb`. */
export const JSON_OBJECT = { type: 'jsonb', default: () => "'{}'" } as const satisfies ColumnOptions;

/**
 * The unique indexes that treat a NULL tenant as one tenant are on `(coalesce(tenant_id, ''))`,
 * an expression TypeORM cannot model: entities name them with this option so the schema builder
 * leaves them as the migrations made them (and does not propose dropping them).
 */
export const EXPRESSION_INDEX = { unique: true, synchronize: false } as const;

/** A column list for hand-written SQL, each name qualified by `alias` when given: `a.id, a.kind`. */
export function columnList(names: readonly string[], alias?: string): string {
  return names.map((n) => (alias ? `${alias}.${n}` : n)).join(', ');
}

/**
 * `name type, …` for a `jsonb_to_recordset` column definition list, each type as `entity`
 * declares it (`varchar` without its length: the INSERT's target column checks that, as before).
 * Read once when a repository module loads; a name the entity does not declare throws there.
 */
export function recordsetColumns(entity: abstract new () => object, names: readonly string[]): string {
  const declared = getMetadataArgsStorage().filterColumns(entity);
  return names
    .map((name) => {
      const column = declared.find((c) => c.propertyName === name);
      if (!column || typeof column.options.type !== 'string') throw new Error(`${entity.name} declares no typed column ${name}`);
      return `${name} ${column.options.type}${column.options.array ? '[]' : ''}`;
    })
    .join(', ');
}
