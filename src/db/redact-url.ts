/**
 * A database URL fit for logs and CLI output: the password is replaced, wherever it is.
 * - In the user info: everything between `://` and the LAST `@` before the query is user info,
 *   so a password holding `/` or `@` unescaped is hidden whole instead of ending the match
 *   early and leaking its tail (the old pattern stopped at the first `/`).
 * - In the query: `password`, `sslpassword` and any other parameter whose decoded name
 *   contains "pass" (`?password=…`, `?PassWord=…`, `?pass%77ord=…`).
 */
export function redactDatabaseUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  if (!scheme) return '***';
  const rest = url.slice(scheme[0].length);
  // `?` and `#` end the authority for every URL parser (pg's included), so a password cannot
  // hold them unescaped; `/` and `@` it can: the user info ends at the last `@` before them.
  const q = rest.search(/[?#]/);
  let head = q < 0 ? rest : rest.slice(0, q);
  const query = q < 0 ? '' : rest.slice(q);
  const at = head.lastIndexOf('@');
  if (at >= 0) {
    const userInfo = head.slice(0, at);
    const colon = userInfo.indexOf(':');
    head = `${colon < 0 ? userInfo : `${userInfo.slice(0, colon)}:***`}@${head.slice(at + 1)}`;
  }
  return `${scheme[0]}${head}${redactPasswordParams(query)}`;
}

function redactPasswordParams(query: string): string {
  if (query === '') return '';
  return `${query[0]}${query
    .slice(1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: compare the name as written.
      }
      return /pass/i.test(decoded) ? `${name}=***` : pair;
    })
    .join('&')}`;
}
