import { Empty } from './error-view.js';

export interface HealthPoint {
  at: string;
  score: number;
  state: string;
}

/** The drawing's size in SVG units; it scales to the panel's width (viewBox), the height stays small. */
const W = 480;
const H = 64;
const PAD = 6;

const STATE_WORDS: Record<string, string> = { healthy: 'healthy', watch: 'on watch', at_risk: 'at risk' };
const words = (state: string) => STATE_WORDS[state] ?? state;
const day = (iso: string) => new Date(iso).toISOString().slice(0, 16).replace('T', ' ');

/**
 * The trend in words: what a screen reader reads instead of the line, and what a sighted reader
 * gets without hovering. The API answers one point per change of score or state.
 */
export function trendSummary(points: HealthPoint[]): string {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return 'No health change recorded yet.';
  if (points.length === 1) return `One recorded score: ${first.score} (${words(first.state)}) since ${day(first.at)} UTC.`;
  const low = points.reduce((m, p) => (p.score < m.score ? p : m), first);
  return `${points.length - 1} change(s) from ${first.score} (${words(first.state)}) on ${day(first.at)} to ${last.score} (${words(last.state)}) on ${day(last.at)} UTC; lowest ${low.score}.`;
}

/**
 * Score over time as a small inline SVG: a line through the points (evenly spaced: they are
 * changes, not samples, so time gaps would only squash the recent ones), each point coloured by
 * its state. Scores are on a fixed 0–100 axis, so two subjects' trends compare at a glance.
 */
export function HealthTrend({ points }: { points: HealthPoint[] }) {
  if (points.length === 0) return <Empty>No health change recorded yet: the trend starts with the first computed score.</Empty>;
  const step = points.length > 1 ? (W - 2 * PAD) / (points.length - 1) : 0;
  const xy = points.map((p, i) => ({ p, x: points.length > 1 ? PAD + i * step : W / 2, y: PAD + ((100 - p.score) / 100) * (H - 2 * PAD) }));
  const summary = trendSummary(points);
  return (
    <figure class="trend" data-testid="health-trend">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="health-trend-title health-trend-desc" preserveAspectRatio="none">
        <title id="health-trend-title">Health score over time</title>
        <desc id="health-trend-desc">{summary}</desc>
        <line class="band" x1={0} x2={W} y1={PAD + 0.3 * (H - 2 * PAD)} y2={PAD + 0.3 * (H - 2 * PAD)} />
        <line class="band" x1={0} x2={W} y1={PAD + 0.6 * (H - 2 * PAD)} y2={PAD + 0.6 * (H - 2 * PAD)} />
        {xy.length > 1 ? <polyline class="line" points={xy.map((c) => `${c.x.toFixed(1)},${c.y.toFixed(1)}`).join(' ')} /> : null}
        {xy.map((c) => (
          <circle key={c.p.at} class={`point state-${c.p.state}`} cx={c.x.toFixed(1)} cy={c.y.toFixed(1)} r={3}>
            <title>{`${c.p.score} (${words(c.p.state)}) at ${day(c.p.at)} UTC`}</title>
          </circle>
        ))}
      </svg>
      <figcaption class="muted" data-testid="health-trend-summary">
        {summary}
      </figcaption>
    </figure>
  );
}
