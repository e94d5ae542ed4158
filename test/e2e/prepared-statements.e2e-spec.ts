import { EntityManager } from 'typeorm';
import { rowOf } from 'src/common/db/row-shape';
import { sql } from 'src/common/db/sql';
import { statementName, TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { TenantScope } from 'src/common/db/tenant-scope';
import { useScratchDb } from '../support/scratch-db';

const ANSWER_ROW = rowOf<{ answer: number }>({ answer: true });

/** Statements go through a repository (the data-access layer's run() is not exported). */
class AnswerRepository extends TenantScopedRepository {
  protected readonly table = 'none';
  answer(em: EntityManager, n: number) {
    return this.scoped(em, TenantScope.ofRequest(null), ANSWER_ROW, (t) => sql`SELECT ${n}::int + 1 AS answer WHERE ${t()}`, { prepared: true });
  }
  seven(em: EntityManager) {
    return this.scoped(em, TenantScope.ofRequest(null), ANSWER_ROW, (t) => sql`SELECT 7 AS answer WHERE ${t()}`, { prepared: true });
  }
}
const ANSWER_SQL = 'SELECT $1::int + 1 AS answer WHERE TRUE';

describe('queries run as prepared statements', () => {
  const scratch = useScratchDb(); // one connection: every statement below shares its session
  const repo = new AnswerRepository();
  const prepared = () => repo.answer(scratch.ds.manager, 41);

  const preparedNames = async () =>
    (await scratch.ds.query(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'memsvc_%'`)).map((r: { name: string }) => r.name);

  it('prepares once under a name derived from the SQL text and reuses it', async () => {
    expect(await prepared()).toEqual([{ answer: 42 }]);
    expect(await prepared()).toEqual([{ answer: 42 }]);
    expect(await preparedNames()).toEqual([statementName(ANSWER_SQL)]);
  });

  it('recovers when the session lost the statement the driver remembers (PgBouncer moved it)', async () => {
    await scratch.ds.query('DEALLOCATE ALL');
    expect(await prepared()).toEqual([{ answer: 42 }]);
    expect(await preparedNames()).toHaveLength(1);
  });

  it('recovers when the session already has the name the driver has not prepared (PGlite reconnect)', async () => {
    const name = statementName(ANSWER_SQL);
    const connection = (await (scratch.ds.driver as unknown as { master: { connect(): Promise<{ connection: { parsedStatements: Record<string, string> }; release(): void }> } }).master.connect());
    delete connection.connection.parsedStatements[name];
    connection.release();
    expect(await prepared()).toEqual([{ answer: 42 }]);
  });

  it('runs inside a transaction unprepared, so a failing Parse cannot abort the transaction', async () => {
    await scratch.ds.query('DEALLOCATE ALL');
    const rows = await scratch.ds.transaction((em) => repo.seven(em));
    expect(rows).toEqual([{ answer: 7 }]);
    expect(await preparedNames()).toEqual([]);
  });
});
