import { redactDatabaseUrl } from './redact-url';

describe('redactDatabaseUrl', () => {
  it('hides the password of the user info, whatever characters it holds', () => {
    expect(redactDatabaseUrl('postgresql://memory:s3cret@db:5432/memory')).toBe('postgresql://memory:***@db:5432/memory');
    expect(redactDatabaseUrl('postgresql://memory:pa/ss/word@db:5432/memory')).toBe('postgresql://memory:***@db:5432/memory');
    expect(redactDatabaseUrl('postgresql://memory:p@ss/w@rd@db:5432/memory?sslmode=require')).toBe('postgresql://memory:***@db:5432/memory?sslmode=require');
    expect(redactDatabaseUrl('postgresql://memory:%2F%40enc@db/memory')).toBe('postgresql://memory:***@db/memory');
    expect(redactDatabaseUrl('postgresql://:only-password@db/memory')).toBe('postgresql://:***@db/memory');
  });

  it('hides password query parameters, by their decoded name', () => {
    expect(redactDatabaseUrl('postgresql://db/memory?user=memory&password=s3cret&sslmode=require')).toBe('postgresql://db/memory?user=memory&password=***&sslmode=require');
    expect(redactDatabaseUrl('postgresql://u@db/m?PASSWORD=a/b@c&sslpassword=k&pass%77ord=x')).toBe('postgresql://u@db/m?PASSWORD=***&sslpassword=***&pass%77ord=***');
  });

  it('keeps a URL without secrets as it is', () => {
    expect(redactDatabaseUrl('postgresql://memory@db:5432/memory')).toBe('postgresql://memory@db:5432/memory');
    expect(redactDatabaseUrl('postgresql://db/memory?sslmode=require')).toBe('postgresql://db/memory?sslmode=require');
  });

  it('never returns a string that still holds the secret', () => {
    for (const secret of ['x/y', 'a@b', '/@/', 'p:q', 'pa%2Fss', 'a/b@c:d']) {
      for (const url of [`postgresql://u:${secret}@h/d`, `postgresql://h/d?password=${secret}`, `postgresql://u:${secret}@h/d?password=${secret}`]) {
        expect(redactDatabaseUrl(url)).not.toContain(secret);
      }
    }
  });
});
