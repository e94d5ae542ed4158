import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import { HealthTrend, trendSummary } from '../src/components/health-trend.js';
import type { HealthPoint } from '../src/components/health-trend.js';

const points: HealthPoint[] = [
  { at: '2026-11-27T03:00:00.000Z', score: 70, state: 'healthy' },
  { at: '2026-11-27T04:00:00.000Z', score: 35, state: 'at_risk' },
  { at: '2026-11-27T05:00:00.000Z', score: 55, state: 'watch' },
];

describe('health trend', () => {
  it('draws a line through the scores with a point per change coloured by its state, labelled by a title and a text summary', () => {
    const html = render(<HealthTrend points={points} />);
    assert.match(html, /<svg[^>]*role="img"[^>]*aria-labelledby="health-trend-title health-trend-desc"/);
    assert.match(html, /<title id="health-trend-title">Health score over time<\/title>/);
    // 0–100 on a fixed axis: 70 sits above 55, which sits above 35 (smaller y is higher).
    const ys = [...html.matchAll(/<circle class="point state-(\w+)" cx="[\d.]+" cy="([\d.]+)"/g)].map((m) => [m[1], Number(m[2])] as const);
    assert.deepEqual(ys.map(([s]) => s), ['healthy', 'at_risk', 'watch']);
    const [healthy, atRisk, watch] = ys.map(([, y]) => y);
    assert.ok(healthy! < watch! && watch! < atRisk!, JSON.stringify(ys));
    assert.match(html, /<polyline class="line" points="6\.0,[\d.]+ 240\.0,[\d.]+ 474\.0,[\d.]+"/);
    const summary = '2 change(s) from 70 (healthy) on 2026-11-27 03:00 to 55 (on watch) on 2026-11-27 05:00 UTC; lowest 35.';
    assert.equal(trendSummary(points), summary);
    assert.ok(html.includes(`<desc id="health-trend-desc">${summary}</desc>`));
    assert.ok(html.includes(`data-testid="health-trend-summary">${summary}</figcaption>`));
    assert.match(html, /<title>35 \(at risk\) at 2026-11-27 04:00 UTC<\/title>/);
  });

  it('draws one point without a line, and says so when there is none', () => {
    const one = render(<HealthTrend points={points.slice(0, 1)} />);
    assert.doesNotMatch(one, /polyline/);
    assert.match(one, /One recorded score: 70 \(healthy\) since 2026-11-27 03:00 UTC\./);
    const none = render(<HealthTrend points={[]} />);
    assert.doesNotMatch(none, /<svg/);
    assert.match(none, /class="empty">No health change recorded yet/);
  });
});
