import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import { MigrationsView, ReadinessView } from '../src/pages/status.js';
import type { MigrationsReport, Readiness } from '../src/pages/status.js';

const ready = (over: Partial<Readiness> = {}): Readiness => ({ status: 'ready', engine: 'pglite', vector: 'pgvector', auth: 'key', checks: { database: 'ok', stuck_compile_jobs: 0 }, ...over });
const report = (over: Partial<MigrationsReport> = {}): MigrationsReport => ({
  current_revision: '0012_add_health_cache',
  expected_head: '0012_add_health_cache',
  is_compatible: true,
  pending_count: 0,
  pending_revisions: [],
  error: null,
  summary: 'Schema is at head.',
  ...over,
});

describe('status page views', () => {
  it('shows readiness with its checks, and a degraded service with the lagging replica and why', () => {
    assert.match(render(<ReadinessView ready={ready()} />), /class="pill ok" data-testid="readiness-status">ready<.*<dt>database<\/dt><dd>ok<\/dd><dt>stuck compile jobs<\/dt><dd>0<\/dd>/);
    const html = render(<ReadinessView ready={ready({ status: 'degraded', auth: 'open', checks: { database: 'ok', stuck_compile_jobs: 2, replicas: [{ name: 'replica-1', state: 'lagging', lag_seconds: 12.34 }] } })} />);
    assert.match(html, /class="pill bad" data-testid="readiness-status">degraded</);
    assert.match(html, /<dd>2<\/dd>/);
    assert.match(html, /<dt>replica-1<\/dt><dd>lagging · 12.3 s behind<\/dd>/);
    assert.match(html, /open: anyone who reaches the port has full access/);
    assert.match(html, /stuck compile jobs exist/);
  });

  it('shows migrations up to date, or the pending ones by name', () => {
    const current = render(<MigrationsView report={report()} />);
    assert.match(current, /pill ok">up to date</);
    assert.match(current, /data-testid="current-revision">0012_add_health_cache</);
    const pending = render(<MigrationsView report={report({ current_revision: '0011_x', pending_count: 1, pending_revisions: ['0012_add_health_cache'], summary: '1 migration pending.' })} />);
    assert.match(pending, /pill bad">1 pending</);
    assert.match(pending, /<li><code>0012_add_health_cache<\/code><\/li>/);
    assert.match(render(<MigrationsView report={report({ is_compatible: false, error: 'schema is newer than this build' })} />), /incompatible[\s\S]*schema is newer than this build/);
  });
});
