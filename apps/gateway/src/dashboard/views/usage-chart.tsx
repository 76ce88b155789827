import { formatNumber } from './parts.js';

export interface ChartPoint {
  /** The bucket's start, ISO 8601. */
  start: string;
  value: number;
}

const WIDTH = 720;
const HEIGHT = 160;
const PAD_LEFT = 48;
const PAD_BOTTOM = 18;

/** Bucket start as a short label: the hour for hourly buckets, the date for daily ones. */
export function bucketLabel(iso: string, interval: 'hour' | 'day'): string {
  return interval === 'hour' ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

/**
 * A bar chart drawn on the server as SVG (no script, no chart library: the
 * page stays within its CSP and works with JavaScript off), with the same
 * figures in a table below it for screen readers and for copying.
 */
export function BarChart({
  id,
  title,
  points,
  interval,
  tone,
}: {
  id: string;
  title: string;
  points: ChartPoint[];
  interval: 'hour' | 'day';
  tone?: 'errors';
}) {
  const max = Math.max(1, ...points.map((point) => point.value));
  const plotWidth = WIDTH - PAD_LEFT;
  const plotHeight = HEIGHT - PAD_BOTTOM;
  const step = plotWidth / Math.max(points.length, 1);
  const barWidth = Math.max(step * 0.8, 1);
  const first = points[0];
  const last = points.at(-1);
  return (
    <figure class="card" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>
        <strong>{title}</strong>{' '}
        <span class="muted">(highest {formatNumber(max === 1 && points.every((p) => p.value === 0) ? 0 : max)})</span>
      </figcaption>
      <svg
        class="chart"
        data-chart={id}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title`}
        preserveAspectRatio="none"
      >
        <line class="axis" x1={PAD_LEFT} y1={plotHeight} x2={WIDTH} y2={plotHeight} />
        <text x={PAD_LEFT - 4} y={10} text-anchor="end">
          {formatNumber(max)}
        </text>
        <text x={PAD_LEFT - 4} y={plotHeight} text-anchor="end">
          0
        </text>
        {points.map((point, i) => {
          const height = (point.value / max) * (plotHeight - 4);
          return (
            <rect
              class={tone ? `bar ${tone}` : 'bar'}
              x={(PAD_LEFT + i * step).toFixed(1)}
              y={(plotHeight - height).toFixed(1)}
              width={barWidth.toFixed(1)}
              height={height.toFixed(1)}
            >
              <title>{`${bucketLabel(point.start, interval)}: ${formatNumber(point.value)}`}</title>
            </rect>
          );
        })}
        {first && (
          <text x={PAD_LEFT} y={HEIGHT - 4}>
            {bucketLabel(first.start, interval)}
          </text>
        )}
        {last && (
          <text x={WIDTH} y={HEIGHT - 4} text-anchor="end">
            {bucketLabel(last.start, interval)}
          </text>
        )}
      </svg>
      <details class="figures">
        <summary>Figures</summary>
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{interval === 'hour' ? 'Hour (UTC)' : 'Day (UTC)'}</th>
                <th scope="col">{title}</th>
              </tr>
            </thead>
            <tbody>
              {points.map((point) => (
                <tr>
                  <td>{bucketLabel(point.start, interval)}</td>
                  <td>{formatNumber(point.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
