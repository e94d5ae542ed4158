import { lockOrder } from './subject-lock';

describe('lockOrder (the order an import takes a subject\'s compile locks in)', () => {
  it('takes each tenant once, no tenant first, then by id, whatever order the rows came in', () => {
    expect(lockOrder(['b', null, 'a', 'b', null, 'a/b'])).toEqual([null, 'a', 'a/b', 'b']);
    expect(lockOrder(['a/b', 'b', 'a'])).toEqual(lockOrder(['a', 'b', 'a/b']));
  });

  it('is empty for a document without rows', () => {
    expect(lockOrder([])).toEqual([]);
  });
});
