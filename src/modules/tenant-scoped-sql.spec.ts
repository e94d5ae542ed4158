/**
 * Every statement a repository issues is scoped: each reference to a tenant-owned table (each
 * table of a join, subquery, set operation and CTE) is constrained by the scope's tenant
 * predicate, unless the statement is one of the operator statements listed below.
 *
 * The statements are composed from fragments at run time (as-of views, candidate branches,
 * optional filters), so no source literal is a whole statement. The spec therefore runs every
 * repository method, with arguments that take each branch adding a table reference, against a
 * connection that records the compiled SQL instead of running it, under the scope of one tenant,
 * and parses each statement with PostgreSQL's own parser (test/support/tenant-sql-check.ts).
 * A method not listed in CALLS fails the spec, so a new method is checked from its first day.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { ENTITIES } from 'src/db/entities';
import { entityRow } from 'src/common/db/row-shape';
import { operatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { ContextRepository, CandidateQuery } from 'src/modules/context/context.repository';
import { EpisodesExportRepository } from 'src/modules/episodes/episodes-export.repository';
import { EpisodesRepository } from 'src/modules/episodes/episodes.repository';
import { CompileJobsRepository } from 'src/modules/memories/compile-jobs.repository';
import { EmbeddingBackfillRepository } from 'src/modules/memories/embeddings/embedding-backfill.repository';
import { MemoriesExportRepository } from 'src/modules/memories/memories-export.repository';
import { MemoriesRepository } from 'src/modules/memories/memories.repository';
import { PolicyBundleEntity } from 'src/modules/policy/policy-bundle.entity';
import { PolicyRepository } from 'src/modules/policy/policy.repository';
import { ReceiptsExportRepository } from 'src/modules/receipts/receipts-export.repository';
import { ReceiptsRepository } from 'src/modules/receipts/receipts.repository';
import { SnapshotsRepository } from 'src/modules/snapshots/snapshots.repository';
import { SubjectsRepository } from 'src/modules/subjects/subjects.repository';
import { SupportRepository } from 'src/modules/support/support.repository';
import { WebhooksRepository } from 'src/modules/webhooks/webhooks.repository';
import { unscopedReferences } from '../../test/support/tenant-sql-check';

const TENANT = 'tenant-under-check';
const scope = TenantScope.of(TENANT);
/** Operator methods that filter by a tenant get the same tenant as an operator's filter. */
const operator = operatorScope(TENANT);
/** Methods that only work across every tenant (workers, crons, metrics). */
const everyTenant = operatorScope();
const ID = '00000000-0000-4000-8000-000000000001';
const AT = new Date('2026-01-01T00:00:00Z');

interface Statement {
  text: string;
  values: unknown[];
}

/**
 * The entities' metadata without a database (TypeORM's query builder needs it to write the SQL of
 * the repositories' builder-made statements; nothing connects).
 */
class MetadataOnly extends DataSource {
  async build(): Promise<this> {
    await this.buildMetadatas();
    return this;
  }
}
let metadata: Promise<DataSource> | undefined;
function entityMetadata(): Promise<DataSource> {
  metadata ??= new MetadataOnly({ type: 'postgres', entities: ENTITIES }).build();
  return metadata;
}

/** A connection that records each statement and answers no rows. */
function recorder(connection: DataSource): { em: EntityManager; statements: Statement[] } {
  const statements: Statement[] = [];
  const query = async (text: string, values: unknown[] = []) => {
    // The data-access layer's role check (row-level security) is not a statement of a repository.
    if (!text.includes('FROM pg_roles')) statements.push({ text, values });
    return { records: [] };
  };
  const queryRunner = { query, isTransactionActive: true };
  const em = { queryRunner, connection, query } as unknown as EntityManager;
  return { em, statements };
}

type Call<R> = (repo: R, em: EntityManager) => Promise<unknown>;

/** Each repository's methods, with each call taking the branches that add table references. */
const CALLS: [TenantScopedRepository, Record<string, Call<never>[]>][] = [];

function calls<R extends TenantScopedRepository>(repo: R, methods: Record<string, Call<R>[]>): void {
  CALLS.push([repo, methods as Record<string, Call<never>[]>]);
}

const candidateQuery = (o: Partial<CandidateQuery>): CandidateQuery => ({
  subjectId: 's',
  tsquery: `'word'`,
  variants: `'allerg'`,
  sessionId: 'sess',
  vector: [0.1, 0.2],
  limits: { text: 5, memoryText: 5, variants: 5, recent: 5, pinned: 5, neighboursOf: 2, semantic: 5 },
  asOf: null,
  ...o,
});

const job = { id: ID, attempts: 1 } as never;
const memoryRow = { tenant_id: TENANT, id: ID, embedding: [0.1] } as never;
const episodeRow = { tenant_id: TENANT, id: ID, payload: '{}', content_text: '' } as never;
const receiptRow = { tenant_id: TENANT, id: 'r1', body: '{}' } as never;
const AT_TEXT = '2026-01-01T00:00:00.000000+00:00';

calls(new EpisodesExportRepository(), {
  subjectTenants: [(r, em) => r.subjectTenants(em, operator, 's')],
  exportPage: [(r, em) => r.exportPage(em, operator, 's', { createdAt: AT_TEXT, seq: '1' }, 10, 1000)],
  existingIds: [(r, em) => r.existingIds(em, everyTenant, [ID])],
  insertImported: [(r, em) => r.insertImported(em, [episodeRow])],
});

calls(new MemoriesExportRepository(), {
  subjectTenants: [(r, em) => r.subjectTenants(em, operator, 's')],
  exportPage: [(r, em) => r.exportPage(em, operator, 's', { createdAt: AT_TEXT, id: ID }, 10)],
  existingIds: [(r, em) => r.existingIds(em, everyTenant, [ID])],
  insertImported: [(r, em) => r.insertImported(em, [memoryRow])],
});

calls(new ReceiptsExportRepository(), {
  exportPage: [(r, em) => r.exportPage(em, operator, 's', { id: 'r1', tenant: TENANT }, 10, 1000)],
  insertImported: [(r, em) => r.insertImported(em, 's', [receiptRow])],
});

calls(new ContextRepository(), {
  memoryCandidates: [
    (r, em) => r.memoryCandidates(em, scope, 'pgvector', candidateQuery({})),
    (r, em) => r.memoryCandidates(em, scope, 'fallback', candidateQuery({ asOf: AT })),
    (r, em) => r.memoryCandidates(em, scope, 'pgvector', candidateQuery({ asOf: AT })),
  ],
  episodeCandidates: [(r, em) => r.episodeCandidates(em, scope, candidateQuery({})), (r, em) => r.episodeCandidates(em, scope, candidateQuery({ asOf: AT }))],
});

calls(new EpisodesRepository(), {
  countNullTenant: [(r, em) => r.countNullTenant(em, everyTenant)],
  insertMany: [(r, em) => r.insertMany(em, scope, [])],
  findByIdempotencyKeys: [(r, em) => r.findByIdempotencyKeys(em, scope, ['k'])],
  listForSubject: [(r, em) => r.listForSubject(em, scope, 's', { limit: 1, uncompiledOnly: true }), (r, em) => r.listForSubject(em, scope, 's', { asOf: AT })],
  page: [
    (r, em) => r.page(em, scope, 's', { after: { at: 'x', seq: '1' }, limit: 1, maxBytes: 1 }),
    (r, em) => r.page(em, scope, 's', { after: null, limit: 1, maxBytes: 1, asOf: AT }),
  ],
  pageJson: [
    (r, em) => r.pageJson(em, scope, 's', { after: { at: 'x', seq: '1' }, limit: 1, maxBytes: 1 }),
    (r, em) => r.pageJson(em, scope, 's', { after: null, limit: 1, maxBytes: 1, asOf: AT }),
  ],
  // Private: the one statement of page and pageJson, driven through pageJson.
  pageOf: [(r, em) => r.pageJson(em, scope, 's', { after: null, limit: 1, maxBytes: 1 })],
  digests: [(r, em) => r.digests(em, scope, 's', { limit: 1, textChars: 10 })],
  lockUncompiled: [(r, em) => r.lockUncompiled(em, scope, 's', { limit: 1, maxBytes: 1 })],
  markCompiled: [(r, em) => r.markCompiled(em, scope, [ID])],
  findByIds: [(r, em) => r.findByIds(em, scope, [ID])],
  deleteSubject: [(r, em) => r.deleteSubject(em, scope, 's')],
  newestAgeMicros: [(r, em) => r.newestAgeMicros(em, scope, 's')],
  copySubject: [(r, em) => r.copySubject(em, operator, 's', 't'), (r, em) => r.copySubject(em, scope, 's', 't', { snapshotId: ID, shiftMicros: '0' })],
  staleSubjects: [(r, em) => r.staleSubjects(em, operator, 'p', AT)],
  lastActivity: [(r, em) => r.lastActivity(em, scope, 's')],
});

calls(new MemoriesRepository(), {
  countNullTenant: [(r, em) => r.countNullTenant(em, everyTenant)],
  lockSubject: [(r, em) => r.lockSubject(em, scope, 's')],
  insertMany: [(r, em) => r.insertMany(em, scope, [{ id: ID } as never])],
  findById: [(r, em) => r.findById(em, scope, ID, { forUpdate: true })],
  findByIdempotencyKey: [(r, em) => r.findByIdempotencyKey(em, scope, 'k')],
  versionChain: [(r, em) => r.versionChain(em, scope, ID, 5)],
  tombstone: [(r, em) => r.tombstone(em, scope, [ID])],
  deleteByIds: [(r, em) => r.deleteByIds(em, scope, [ID])],
  supersede: [(r, em) => r.supersede(em, scope, [{ id: ID, valid_to: AT, superseded_by: null }])],
  activeForSubject: [(r, em) => r.activeForSubject(em, scope, 's', { kinds: ['profile_fact'], excludeKinds: ['procedure'], limit: 1, withEmbedding: true })],
  activeWithContent: [(r, em) => r.activeWithContent(em, scope, 's', ['profile_fact'], ['c'], 1)],
  page: [
    (r, em) => r.page(em, scope, 's', { after: { at: 'x', id: ID }, limit: 1, maxBytes: 1 }),
    (r, em) => r.page(em, scope, 's', { after: null, limit: 1, maxBytes: 1, asOf: AT }),
  ],
  pageJson: [
    (r, em) => r.pageJson(em, scope, 's', { after: { at: 'x', id: ID }, limit: 1, maxBytes: 1 }),
    (r, em) => r.pageJson(em, scope, 's', { after: null, limit: 1, maxBytes: 1, asOf: AT }),
  ],
  // Private: the one statement of page and pageJson, driven through pageJson.
  pageOf: [(r, em) => r.pageJson(em, scope, 's', { after: null, limit: 1, maxBytes: 1 })],
  listForSubject: [(r, em) => r.listForSubject(em, scope, 's', { statuses: ['active'], limit: 1, asOf: AT }), (r, em) => r.listForSubject(em, scope, 's')],
  findByIds: [(r, em) => r.findByIds(em, scope, [ID]), (r, em) => r.findByIds(em, scope, [ID], AT)],
  searchText: [(r, em) => r.searchText(em, scope, { subjectId: 's', kind: 'profile_fact', text: 'x', limit: 1, asOf: AT })],
  searchSemantic: [
    (r, em) => r.searchSemantic(em, scope, 'pgvector', { subjectId: 's', kind: 'profile_fact', vector: [0.1], limit: 1, asOf: AT }),
    (r, em) => r.searchSemantic(em, scope, 'fallback', { subjectId: 's', vector: [0.1], limit: 1 }),
  ],
  semanticPool: [(r, em) => r.semanticPool(em, scope, { subjectId: 's', kind: 'profile_fact', tsquery: `'w'`, matches: 1, newest: 1, asOf: AT })],
  setLabels: [(r, em) => r.setLabels(em, scope, ID, ['l'])],
  staleSubjects: [(r, em) => r.staleSubjects(em, operator, 'p', AT)],
  lastActivity: [(r, em) => r.lastActivity(em, scope, 's')],
  deleteSubject: [(r, em) => r.deleteSubject(em, scope, 's')],
  newestAgeMicros: [(r, em) => r.newestAgeMicros(em, scope, 's')],
  copySubject: [(r, em) => r.copySubject(em, operator, 's', 't', { table: 'episode_id_map_x' }), (r, em) => r.copySubject(em, scope, 's', 't', { table: 'episode_id_map_x' }, { snapshotId: ID, shiftMicros: '0' })],
});

calls(new CompileJobsRepository(), {
  insert: [(r, em) => r.insert(em, scope, 's')],
  findById: [(r, em) => r.findById(em, scope, ID)],
  claim: [(r, em) => r.claim(em, everyTenant, 1)],
  complete: [(r, em) => r.complete(em, everyTenant, job, [ID], 1)],
  fail: [(r, em) => r.fail(em, everyTenant, job, 'e')],
  renewLease: [(r, em) => r.renewLease(em, everyTenant, job)],
  resetOrphaned: [(r, em) => r.resetOrphaned(em, everyTenant, 1, 1, 3)],
  requeueFailed: [(r, em) => r.requeueFailed(em, everyTenant, [ID])],
  findStatus: [(r, em) => r.findStatus(em, operator, ID)],
  deleteFinished: [(r, em) => r.deleteFinished(em, everyTenant, 1)],
  deleteSubject: [(r, em) => r.deleteSubject(em, scope, 's')],
  countsByStatus: [(r, em) => r.countsByStatus(em, everyTenant)],
  list: [(r, em) => r.list(em, operator, { status: 'failed', subjectId: 's', limit: 1, offset: 0 })],
  countNullTenant: [(r, em) => r.countNullTenant(em, everyTenant)],
  countStuck: [(r, em) => r.countStuck(em, everyTenant, 1, 1)],
});

calls(new EmbeddingBackfillRepository(), {
  pending: [(r, em) => r.pending(em, everyTenant, 1, { cursor: 'c', id: ID })],
  countPending: [(r, em) => r.countPending(em, everyTenant)],
  store: [(r, em) => r.store(em, scope, [{ id: ID, embedding: null }])],
});

calls(new PolicyRepository(), {
  find: [(r, em) => r.find(em, scope)],
  upsert: [(r, em) => r.upsert(em, operator, 'y', 'h')],
  delete: [(r, em) => r.delete(em, operator)],
});

calls(new ReceiptsRepository(), {
  countNullTenant: [(r, em) => r.countNullTenant(em, everyTenant)],
  insert: [(r, em) => r.insert(em, scope, { receipt_id: 'r' } as never), (r, em) => r.insert(em, scope, { receipt_id: 'r' } as never, { asyncCommit: true })],
  find: [(r, em) => r.find(em, scope, 'r')],
  list: [(r, em) => r.list(em, scope, { subjectId: 's', since: AT, until: AT, beforeId: 'r', limit: 1, maxBytes: 1 })],
  deleteSubject: [(r, em) => r.deleteSubject(em, scope, 's')],
  copySubject: [(r, em) => r.copySubject(em, operator, 's', 't')],
});

calls(new SnapshotsRepository(), {
  nextVersion: [(r, em) => r.nextVersion(em, operator, 'n')],
  insert: [(r, em) => r.insert(em, operator, { metadata: {} } as never)],
  list: [(r, em) => r.list(em, operator)],
  findById: [(r, em) => r.findById(em, operator, ID)],
  findLatestByName: [(r, em) => r.findLatestByName(em, operator, 'n')],
});

calls(new SubjectsRepository(), {
  list: [(r, em) => r.list(em, scope, 1, 0)],
});

calls(new SupportRepository(), {
  upsertResolution: [(r, em) => r.upsertResolution(em, scope, { id: ID, subject_id: 's', session_id: 'x', status: 'resolved', resolution_summary: null, metadata: {} })],
  listResolutions: [(r, em) => r.listResolutions(em, scope, 's', 'resolved')],
  lockCachedHealth: [(r, em) => r.lockCachedHealth(em, scope, 's')],
  insertCachedHealth: [(r, em) => r.insertCachedHealth(em, scope, { subject_id: 's', state: 'healthy', score: 1, factors: [] } as never)],
  updateCachedHealth: [(r, em) => r.updateCachedHealth(em, scope, { subject_id: 's', state: 'healthy', score: 1, factors: [] } as never)],
  deleteSubject: [(r, em) => r.deleteSubject(em, scope, 's')],
  appendHealthPoint: [(r, em) => r.appendHealthPoint(em, scope, 's', { score: 50, state: 'watch', at: AT })],
  healthHistory: [(r, em) => r.healthHistory(em, scope, 's', 10)],
  takeRefreshMark: [(r, em) => r.takeRefreshMark(em, scope, 's')],
  staleRefreshMarks: [(r, em) => r.staleRefreshMarks(em, everyTenant, 1000, 1)],
});

calls(new WebhooksRepository(), {
  insert: [(r, em) => r.insert(em, scope, [{ event: 'e', payload: { event: 'e', timestamp: 't', data: {} } }])],
  forgetSubject: [(r, em) => r.forgetSubject(em, scope, 's')],
  claimDue: [(r, em) => r.claimDue(em, everyTenant, 1, 1000)],
  recordAttempt: [(r, em) => r.recordAttempt(em, everyTenant, ID, 0, { status: 'delivered', statusCode: 200 })],
  findById: [(r, em) => r.findById(em, operator, ID)],
  page: [
    (r, em) => r.page(em, operator, { before: null, limit: 2, maxBytes: 1000 }),
    (r, em) => r.page(em, operator, { status: 'dead_letter', subjectId: 's', event: 'e', before: { at: '2026-01-01T00:00:00.000000Z', id: ID }, limit: 2, maxBytes: 1000 }),
  ],
  counts: [(r, em) => r.counts(em, operator)],
  pruneBatch: [(r, em) => r.pruneBatch(em, everyTenant, 'delivered', 1, 1)],
  requeueDead: [(r, em) => r.requeueDead(em, operator, [ID], 1)],
});

/**
 * Operator statements: work across every tenant (workers, crons, operator commands, metrics),
 * where a row carries its own tenant. Each must really be unscoped (kept honest below).
 */
const OPERATOR_STATEMENTS = new Set([
  'CompileJobsRepository.countNullTenant',
  'EpisodesRepository.countNullTenant',
  'MemoriesRepository.countNullTenant',
  'ReceiptsRepository.countNullTenant',
  'EpisodesExportRepository.existingIds',
  'MemoriesExportRepository.existingIds',
  'CompileJobsRepository.claim',
  'CompileJobsRepository.complete',
  'CompileJobsRepository.fail',
  'CompileJobsRepository.renewLease',
  'CompileJobsRepository.resetOrphaned',
  'CompileJobsRepository.requeueFailed',
  'CompileJobsRepository.deleteFinished',
  'CompileJobsRepository.countsByStatus',
  'CompileJobsRepository.countStuck',
  'EmbeddingBackfillRepository.pending',
  'EmbeddingBackfillRepository.countPending',
  'SnapshotsRepository.nextVersion',
  'SupportRepository.staleRefreshMarks',
  'WebhooksRepository.claimDue',
  'WebhooksRepository.recordAttempt',
  'WebhooksRepository.pruneBatch',
]);

function repositoryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? repositoryFiles(path) : e.name.endsWith('.repository.ts') ? [path] : [];
  });
}

interface Checked {
  method: string;
  statements: number;
  unscoped: string[];
}

async function checkAll(): Promise<Checked[]> {
  const out: Checked[] = [];
  for (const [repo, methods] of CALLS) {
    for (const [name, variants] of Object.entries(methods)) {
      const method = `${repo.constructor.name}.${name}`;
      let statements = 0;
      const unscoped: string[] = [];
      for (const call of variants) {
        const { em, statements: recorded } = recorder(await entityMetadata());
        // The recorder answers no rows, so a method may fail after its statements were recorded.
        await call(repo as never, em).catch(() => undefined);
        statements += recorded.length;
        for (const s of recorded) {
          for (const u of await unscopedReferences(s.text, s.values, TENANT)) unscoped.push(`${u.table} ${u.alias} at ${u.location}: ${s.text.replace(/\s+/g, ' ').trim().slice(0, 160)}`);
        }
      }
      out.push({ method, statements, unscoped });
    }
  }
  return out;
}

describe('every repository statement is scoped (SQL parsed by PostgreSQL\'s parser)', () => {
  let checked: Checked[];
  beforeAll(async () => {
    checked = await checkAll();
  });

  it('drives every method of every tenant-scoped repository', () => {
    const missing = CALLS.flatMap(([repo, methods]) =>
      Object.getOwnPropertyNames(Object.getPrototypeOf(repo))
        .filter((m) => m !== 'constructor' && !(m in methods))
        .map((m) => `${repo.constructor.name}.${m}`),
    );
    expect(missing).toEqual([]);
    // …and every repository class that extends the tenant-scoped base is in CALLS.
    const declared = repositoryFiles(__dirname).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/class (\w+) extends TenantScopedRepository/g)].map((m) => m[1]));
    expect(declared.sort()).toEqual(CALLS.map(([repo]) => repo.constructor.name).sort());
    expect(checked.filter((c) => c.statements === 0).map((c) => c.method)).toEqual([]);
  });

  it('constrains every tenant-owned table reference by the scope, outside the listed operator statements', () => {
    const offenders = checked.filter((c) => !OPERATOR_STATEMENTS.has(c.method) && c.unscoped.length > 0).flatMap((c) => c.unscoped.map((u) => `${c.method}: ${u}`));
    expect(offenders).toEqual([]);
  });

  it('keeps the operator list honest: each listed statement reads every tenant', () => {
    const scopedAfterAll = [...OPERATOR_STATEMENTS].filter((m) => !checked.some((c) => c.method === m && c.unscoped.length > 0));
    expect(scopedAfterAll).toEqual([]);
  });
});

describe('repositories never hold a raw manager', () => {
  it('imports neither TypeORM nor the handle\'s manager in a tenant-scoped repository: statements go through scoped() and stamped()', () => {
    const offenders = repositoryFiles(__dirname)
      .map((file) => ({ file, text: readFileSync(file, 'utf8') }))
      .filter(({ text }) => /extends TenantScopedRepository/.test(text))
      .filter(({ text }) => /from 'typeorm'/.test(text) || /\bmanagerOf\b/.test(text) || /\bEntityManager\b/.test(text))
      .map(({ file }) => file);
    expect(offenders).toEqual([]);
  });
});

describe('the SQL check', () => {
  const check = (text: string) => unscopedReferences(text, [TENANT], TENANT).then((found) => found.map((u) => `${u.table} ${u.alias}`));

  it('fails a join that scopes one table and not the other', async () => {
    await expect(check(`SELECT m.id FROM memories m JOIN episodes e ON e.id = m.source_episode_ids[1] WHERE m.tenant_id = $1`)).resolves.toEqual(['episodes e']);
    await expect(check(`SELECT m.id FROM memories m JOIN episodes e ON e.id = m.source_episode_ids[1] AND e.tenant_id = $1 WHERE m.tenant_id = $1`)).resolves.toEqual([]);
  });

  it('sees table references in subqueries, set operations, CTEs and DML', async () => {
    await expect(check(`SELECT x.id FROM memories x WHERE x.tenant_id = $1 AND x.id IN (SELECT id FROM episodes)`)).resolves.toEqual(['episodes episodes']);
    await expect(check(`SELECT id FROM episodes WHERE tenant_id = $1 UNION SELECT id FROM memories`)).resolves.toEqual(['memories memories']);
    await expect(check(`WITH gone AS (DELETE FROM receipts WHERE subject_id = 's' RETURNING 1) SELECT count(*) FROM gone`)).resolves.toEqual(['receipts receipts']);
    await expect(check(`UPDATE webhook_events SET status = 'x' WHERE id IN (SELECT id FROM webhook_events WHERE tenant_id = $1)`)).resolves.toEqual(['webhook_events webhook_events']);
    await expect(check(`INSERT INTO compile_jobs (tenant_id, subject_id) VALUES ('other', 's')`)).resolves.toEqual(['compile_jobs INSERT INTO compile_jobs']);
    await expect(check(`INSERT INTO compile_jobs (tenant_id, subject_id) VALUES ($1, 's')`)).resolves.toEqual([]);
  });

  it('does not take an OR, or a predicate in an outer join\'s ON for the kept side, as a constraint', async () => {
    await expect(check(`SELECT 1 FROM memories m WHERE m.tenant_id = $1 OR true`)).resolves.toEqual(['memories m']);
    await expect(check(`SELECT 1 FROM memories m LEFT JOIN episodes e ON m.tenant_id = $1 AND e.tenant_id = $1`)).resolves.toEqual(['memories m']);
  });

  it('treats a CTE that shadows a table as that table: every reference to the view must be scoped', async () => {
    const view = `WITH memories AS NOT MATERIALIZED (SELECT m.* FROM memories m LEFT JOIN LATERAL (SELECT * FROM memory_revisions r WHERE r.memory_id = m.id) r ON TRUE)`;
    await expect(check(`${view} SELECT x.id FROM memories x WHERE x.tenant_id = $1`)).resolves.toEqual([]);
    await expect(check(`${view} SELECT x.id FROM memories x WHERE x.subject_id = 's'`)).resolves.toEqual(['memories x']);
    // A CTE of another name that only selects scoped rows is not tenant-owned.
    await expect(check(`WITH ids AS MATERIALIZED (SELECT id FROM episodes WHERE tenant_id = $1) SELECT id FROM ids`)).resolves.toEqual([]);
  });
});

describe('statements built with TypeORM\'s query builder', () => {
  class Probe extends TenantScopedRepository {
    protected readonly table = 'policy_bundles';
    read(em: EntityManager, replace: boolean) {
      const shape = entityRow(PolicyBundleEntity, ['yaml', 'hash'] as const);
      return this.select(em, scope, shape, PolicyBundleEntity, 'p', (qb) => (replace ? qb.where('p.hash = :h', { h: 'x' }) : qb.andWhere('p.hash = :h', { h: 'x' })));
    }
    remove(em: EntityManager) {
      return this.deleted(em, scope, PolicyBundleEntity, (qb) => qb.andWhere('hash = :h', { h: 'x' }));
    }
  }

  it('select the shape\'s columns under their own names, scoped by the tenant', async () => {
    const { em, statements } = recorder(await entityMetadata());
    await new Probe().read(em, false);
    expect(statements).toEqual([
      { text: 'SELECT "p"."yaml" AS "yaml", "p"."hash" AS "hash" FROM "policy_bundles" "p" WHERE "p"."tenant_id" = $1 AND "p"."hash" = $2', values: [TENANT, 'x'] },
    ]);
    await new Probe().remove(em);
    expect(statements[1]).toEqual({ text: 'DELETE FROM "policy_bundles" WHERE "tenant_id" = $1 AND "hash" = $2 RETURNING 1', values: [TENANT, 'x'] });
  });

  it('refuse a builder whose where() replaced the tenant predicate', async () => {
    const { em, statements } = recorder(await entityMetadata());
    await expect(new Probe().read(em, true)).rejects.toThrow('query on policy_bundles replaced its tenant predicate (add conditions with andWhere)');
    expect(statements).toEqual([]);
  });
});
