import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['refused connect', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['refused on every address', Object.assign(new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''), { code: 'ECONNREFUSED' })],
    ['dropped connection', new Error('Connection terminated unexpectedly')],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['connect timeout', new Error('Connection terminated due to connection timeout')],
    ['connect ETIMEDOUT', withCode('connect ETIMEDOUT 10.0.0.1:5432', 'ETIMEDOUT')],
    ['admin shutdown 57P01', withCode('terminating connection due to administrator command', '57P01')],
    ['starting up 57P03', withCode('the database system is starting up', '57P03')],
    ['connection exception 08006', withCode('connection failure', '08006')],
    ['too many connections 53300', withCode('sorry, too many clients already', '53300')],
    ['statement timeout 57014', withCode('canceling statement due to statement timeout', '57014')],
    ['idle in transaction timeout 25P03', withCode('terminating connection due to idle-in-transaction timeout', '25P03')],
    ['client query timeout', new Error('Query read timeout')],
    ['wrapped by TypeORM', new QueryFailedError('SELECT 1', [], withCode('terminating connection due to administrator command', '57P01'))],
  ])('recognises %s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['syntax error', withCode('syntax error at or near "x"', '42601')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
    ['user text quoting a connection message', withCode('invalid input syntax for type uuid: "Connection terminated unexpectedly"', '22P02')],
  ])('leaves %s alone', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
