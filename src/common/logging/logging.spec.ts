import { redactQuery } from './logging';

describe('redactQuery', () => {
  it('redacts api_key and q by the name the query parser reads, however it is spelled', () => {
    for (const name of ['api_key', 'api%5Fkey', 'api%5fkey', 'API_KEY', 'Api%5FKey', 'api_key%5B%5D', 'api_key[]', '%61pi_key', 'q', '%71']) {
      expect(redactQuery(`/v1/timeline?subject_id=s&${name}=s3cret&limit=5`)).toBe(`/v1/timeline?subject_id=s&${name}=[Redacted]&limit=5`);
    }
  });

  it('redacts every occurrence, a first parameter, a valueless one, and ; separators', () => {
    expect(redactQuery('/x?api_key=a&api_key=b')).toBe('/x?api_key=[Redacted]&api_key=[Redacted]');
    expect(redactQuery('/x?q=diagnosis')).toBe('/x?q=[Redacted]');
    expect(redactQuery('/x?api_key')).toBe('/x?api_key=[Redacted]');
    expect(redactQuery('/x?a=1;q=words')).toBe('/x?a=1;q=[Redacted]');
  });

  it('keeps other parameters, look-alike names and URLs without a query as sent', () => {
    expect(redactQuery('/v1/timeline?subject_id=api_key%3Dx&my_api_key=1&qq=2')).toBe('/v1/timeline?subject_id=api_key%3Dx&my_api_key=1&qq=2');
    expect(redactQuery('/v1/subjects/a%2Fb')).toBe('/v1/subjects/a%2Fb');
    expect(redactQuery('/x?%E0%A4%A=1')).toBe('/x?%E0%A4%A=1');
  });
});
