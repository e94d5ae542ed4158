import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = join(__dirname, '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('documentation', () => {
  it('shows every path and method of the checked-in openapi.json in docs/api.md', () => {
    const spec = JSON.parse(read('openapi.json')) as { paths: Record<string, Record<string, unknown>> };
    const api = read('docs/api.md');
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const method of Object.keys(methods)) {
        const entry = `${method.toUpperCase()} ${path}`;
        // Whole entries only: `GET /health` must not be found inside `GET /healthz`.
        const escaped = entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        if (!new RegExp(`(^|[\\s\`])${escaped}($|[\\s,\`])`, 'm').test(api)) missing.push(entry);
      }
    }
    expect(missing).toEqual([]);
  });

  it('links every page of docs/ from the README', () => {
    const readme = read('README.md');
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    expect(pages.filter((p) => !readme.includes(`](docs/${p})`))).toEqual([]);
  });

  it('has no broken relative links between the README and the docs', () => {
    const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const file of files) {
      for (const [, target] of read(file).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(resolve(dirname(join(ROOT, file)), target))) broken.push(`${file} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
