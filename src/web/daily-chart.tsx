import { arStats } from '../domain/catalogue/marketer-stats';
import { formatDate, formatNumber } from '../domain/stats-format';

/** One day of the numbers' answers (YYYY-MM-DD, UTC). */
export interface Day {
  date: string;
  visits: number;
  leads: number;
  clients: number;
}

// The bars of a day, in the chart's order and colours (styles.css), each with its legend's text.
const series = [
  { key: 'visits', label: arStats.statVisits },
  { key: 'leads', label: arStats.statSignUps },
  { key: 'clients', label: arStats.statClients },
] as const;

// One day's column in the chart's units: a bar of each series side by side.
const bar = 3;
const column = series.length * bar + 1;
const height = 60;

/** The days named under the axis: the first, the last and, between them, the middle one. */
function axisDays(days: Day[]): Day[] {
  const picked = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1]);
  return days.filter((_, index) => picked.has(index));
}

/**
 * Visits, leads and clients per day as bars, time running right to left as Arabic reads, the
 * newest day at the left, with dates under the axis and a legend. The SVG is a picture only:
 * the same numbers are in the table under it, which screen readers read instead.
 */
export function DailyChart({ days }: { days: Day[] }) {
  const highest = Math.max(1, ...days.map((day) => Math.max(day.visits, day.leads, day.clients)));
  const scaled = (value: number) => (value / highest) * height;
  const width = Math.max(1, days.length) * column;
  return (
    <figure className="chart">
      <figcaption>
        {arStats.statsChart}:{' '}
        {series.map(({ key, label }) => (
          <span key={key} className={`key ${key}`}>
            {label}
          </span>
        ))}
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" aria-hidden="true">
        {days.map((day, index) => {
          const x = width - (index + 1) * column;
          return (
            <g key={day.date}>
              {series.map(({ key }, place) => (
                <rect
                  key={key}
                  className={key}
                  x={x + 0.5 + place * bar}
                  y={height - scaled(day[key])}
                  width={bar}
                  height={scaled(day[key])}
                />
              ))}
            </g>
          );
        })}
      </svg>
      <div className="chart-axis" aria-hidden="true">
        {axisDays(days).map((day) => (
          <span key={day.date}>{formatDate(day.date)}</span>
        ))}
      </div>
      {/* A table is never narrower than its cells: hidden inside a box that is. */}
      <div className="visually-hidden">
        <table>
          <caption>{arStats.statsChart}</caption>
          <thead>
            <tr>
              <th scope="col">{arStats.statDate}</th>
              {series.map(({ key, label }) => (
                <th key={key} scope="col">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{formatDate(day.date)}</th>
                {series.map(({ key }) => (
                  <td key={key}>{formatNumber(day[key])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
