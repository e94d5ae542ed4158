import { asText, CHECK_ROWS, checkRows, COUNT, entityRow, rowOf } from './row-shape';

class Thing {
  id: string;
  name: string;
  embedding: number[] | null;
  created_at: Date;
}

describe('row shapes', () => {
  const shape = entityRow(Thing, ['id', 'name'] as const, ['embedding'] as const);

  it('are checked under test (jest sets NODE_ENV=test)', () => {
    expect(CHECK_ROWS).toBe(true);
  });

  it('accept rows with exactly the declared columns, optional ones present or not', () => {
    expect(() => checkRows([{ id: '1', name: 'a' }, { id: '2', name: 'b', embedding: null }], shape, 'things')).not.toThrow();
    expect(() => checkRows([], shape, 'things')).not.toThrow();
  });

  it('refuse a row missing a declared column', () => {
    expect(() => checkRows([{ id: '1' }], shape, 'things')).toThrow('a statement on things answered columns that differ from its row shape: missing name; got id');
  });

  it('refuse a row with a column the shape does not declare', () => {
    expect(() => checkRows([{ id: '1', name: 'a', created_at: new Date() }], shape, 'things')).toThrow('not declared created_at');
  });

  it('check every row, not only the first', () => {
    expect(() => checkRows([{ n: 1 }, { n: 2, extra: true }], COUNT, 'things')).toThrow('not declared extra');
  });

  it('extend with computed columns', () => {
    const scored = shape.with<{ score: number }>({ score: true });
    expect(scored.columns).toEqual(['id', 'name', 'score']);
    expect(() => checkRows([{ id: '1', name: 'a', score: 0.5 }], scored, 'things')).not.toThrow();
    expect(rowOf<{ a: number; b: string }>({ a: true, b: true }).columns).toEqual(['a', 'b']);
  });

  it('retype columns read as text and keep the shape\'s columns, refusing one it lacks', () => {
    const text = asText(entityRow(Thing, ['id', 'created_at'] as const, ['embedding'] as const), ['created_at']);
    const row: typeof text.row = { id: '1', created_at: '2026-01-01T00:00:00.000001+00:00' };
    expect(text.columns).toEqual(['id', 'created_at']);
    expect(() => checkRows([row], text, 'things')).not.toThrow();
    expect(() => asText(shape, ['created_at' as never])).toThrow('asText: the shape has no column created_at');
  });
});
