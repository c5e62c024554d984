import { useEffect, useState, type ReactNode } from 'react';
import { ar, arStats } from '../domain/catalogue';
import {
  marketerStatsPath,
  statsPeriods,
  type LinkNumbers,
  type MarketerStats,
  type StatsPeriod,
  type TeamMember,
} from '../domain/marketer-stats';
import { packageLabel } from '../domain/packages';

type Loaded =
  | { kind: 'loading' }
  | { kind: 'stats'; stats: MarketerStats }
  | { kind: 'error' }
  /** The token is refused, or the feature is off: the section is not shown. */
  | { kind: 'hidden' };

// Western digits, as in the link and the licence line; Arabic separators and words.
const numbers = new Intl.NumberFormat('ar', { numberingSystem: 'latn' });
const percent = new Intl.NumberFormat('ar', {
  numberingSystem: 'latn',
  style: 'percent',
  maximumFractionDigits: 1,
});
const dates = new Intl.DateTimeFormat('ar', {
  numberingSystem: 'latn',
  day: 'numeric',
  month: 'long',
  timeZone: 'UTC',
});

const formatDate = (date: string) => dates.format(new Date(`${date}T00:00:00Z`));

/** The platform's token, as it left it in localStorage (some store it as a JSON string). */
function storedToken(storageKey: string): string | undefined {
  let value: string | null;
  try {
    value = window.localStorage.getItem(storageKey);
  } catch {
    return undefined;
  }
  if (value === null || value === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'string') return parsed;
  } catch {
    // A bare token is not JSON: it is used as it is.
  }
  return value;
}

async function fetchStats(
  storageKey: string,
  days: StatsPeriod,
  signal: AbortSignal,
): Promise<Loaded> {
  const token = storedToken(storageKey);
  // Same origin, so the platform's session cookie goes too when the server reads one.
  const response = await fetch(`${marketerStatsPath}?days=${days}`, {
    credentials: 'same-origin',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal,
  });
  if ([401, 403, 404].includes(response.status)) return { kind: 'hidden' };
  if (!response.ok) return { kind: 'error' };
  return { kind: 'stats', stats: (await response.json()) as MarketerStats };
}

/**
 * «نتائج رابطك»: the marketer's own numbers, from the server, for the token the platform left in
 * the browser. Loaded with import() by the link page only.
 */
export function MarketerStatsSection({ storageKey }: { storageKey: string }) {
  const [days, setDays] = useState<StatsPeriod>(30);
  const [attempt, setAttempt] = useState(0);
  // The answer and the request it answers: a newer request shows loading until its own.
  const request = `${days}:${attempt}`;
  const [answer, setAnswer] = useState<{ request: string; loaded: Loaded }>();

  useEffect(() => {
    const controller = new AbortController();
    fetchStats(storageKey, days, controller.signal).then(
      (loaded) => setAnswer({ request, loaded }),
      () => {
        if (!controller.signal.aborted) setAnswer({ request, loaded: { kind: 'error' } });
      },
    );
    return () => controller.abort();
  }, [storageKey, days, request]);

  // Once refused, the section stays hidden: another period would be refused too.
  if (answer?.loaded.kind === 'hidden') return null;
  const loaded: Loaded = answer?.request === request ? answer.loaded : { kind: 'loading' };

  return (
    <section
      className="card stats"
      aria-labelledby="stats-heading"
      aria-busy={loaded.kind === 'loading'}
    >
      <h2 id="stats-heading">{arStats.heading}</h2>
      <label htmlFor="period">{arStats.fieldPeriod}</label>
      <select
        id="period"
        value={days}
        onChange={(event) =>
          setDays(statsPeriods.find((period) => String(period) === event.target.value) ?? 30)
        }
      >
        {statsPeriods.map((period) => (
          <option key={period} value={period}>
            {arStats.statsPeriods[period]}
          </option>
        ))}
      </select>
      {loaded.kind === 'loading' && <p className="message">{arStats.statsLoading}</p>}
      {loaded.kind === 'error' && (
        <div className="actions">
          <p className="message error" role="alert">
            {arStats.errorStats}
          </p>
          <button type="button" className="secondary" onClick={() => setAttempt((n) => n + 1)}>
            {arStats.buttonRetry}
          </button>
        </div>
      )}
      {loaded.kind === 'stats' && <Numbers stats={loaded.stats} />}
      {loaded.kind === 'stats' && loaded.stats.team !== undefined && (
        <Team members={loaded.stats.team} totals={loaded.stats.team_totals} />
      )}
    </section>
  );
}

const rate = (value: number | null) =>
  value === null ? arStats.statNone : percent.format(value / 100);

function Numbers({ stats }: { stats: MarketerStats }) {
  const { totals } = stats;
  if (totals.visits === 0 && totals.leads === 0) {
    return <p className="message">{arStats.statsEmpty}</p>;
  }
  return (
    <>
      <dl className="totals">
        <Total label={arStats.statVisits} value={numbers.format(totals.visits)} />
        <Total label={arStats.statUniqueVisitors} value={numbers.format(totals.unique_visitors)} />
        <Total label={arStats.statSignUps} value={numbers.format(totals.leads)} />
        <Total label={arStats.statConversion} value={rate(totals.conversion_percent)} />
        <Total label={arStats.statClients} value={numbers.format(totals.clients)} />
        <Total label={arStats.statClientRate} value={rate(totals.client_percent)} />
      </dl>
      <p className="note">{arStats.statsPeriodNote}</p>
      <DayChart days={stats.by_day} />
      <ScrollingTable caption={arStats.statsByPackage} id="packages-caption">
        <thead>
          <tr>
            <th scope="col">{ar.fieldPackage}</th>
            <th scope="col">{arStats.statVisits}</th>
            <th scope="col">{arStats.statUniqueVisitors}</th>
            <th scope="col">{arStats.statSignUps}</th>
            <th scope="col">{arStats.statClients}</th>
          </tr>
        </thead>
        <tbody>
          {stats.by_package.map((row) => (
            <tr key={row.package_key ?? ''}>
              <th scope="row">
                {row.package_key === null ? ar.headingFreeTrial : packageLabel(row.package_key)}
              </th>
              <td>{numbers.format(row.visits)}</td>
              <td>{numbers.format(row.unique_visitors)}</td>
              <td>{numbers.format(row.leads)}</td>
              <td>{numbers.format(row.clients)}</td>
            </tr>
          ))}
        </tbody>
      </ScrollingTable>
    </>
  );
}

/**
 * A table wider than a narrow phone: it scrolls sideways on its own, in a region named by its
 * caption that the keyboard can reach (and so scroll), while the page keeps its width.
 */
function ScrollingTable({
  caption,
  id,
  children,
}: {
  caption: string;
  id: string;
  children: ReactNode;
}) {
  return (
    <div className="table-scroll" role="region" aria-labelledby={id} tabIndex={0}>
      <table className="stats-table">
        <caption id={id}>{caption}</caption>
        {children}
      </table>
    </div>
  );
}

/**
 * A team leader's members, under the leader's own numbers: in the order the platform lists
 * them, or by clients, most first. On a narrow phone the table scrolls sideways in a region
 * that the keyboard can reach.
 */
function Team({ members, totals }: { members: TeamMember[]; totals: LinkNumbers | undefined }) {
  const [byClients, setByClients] = useState(false);
  if (members.length === 0) return <p className="message">{arStats.teamEmpty}</p>;
  const rows = byClients ? [...members].sort((a, b) => b.clients - a.clients) : members;
  const cells = (row: LinkNumbers) => (
    <>
      <td>{numbers.format(row.visits)}</td>
      <td>{numbers.format(row.unique_visitors)}</td>
      <td>{numbers.format(row.leads)}</td>
      <td>{numbers.format(row.clients)}</td>
    </>
  );
  return (
    <ScrollingTable caption={arStats.teamHeading} id="team-caption">
      <thead>
        <tr>
          <th scope="col">{arStats.teamMember}</th>
          <th scope="col">{arStats.statVisits}</th>
          <th scope="col">{arStats.statUniqueVisitors}</th>
          <th scope="col">{arStats.statSignUps}</th>
          <th scope="col" aria-sort={byClients ? 'descending' : 'none'}>
            <button
              type="button"
              className="sort"
              aria-pressed={byClients}
              onClick={() => setByClients((sorted) => !sorted)}
            >
              {arStats.statClients}
              <span className="visually-hidden">{` (${arStats.teamSortByClients})`}</span>
            </button>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((member) => (
          <tr key={member.marketing_id}>
            <th scope="row">
              <bdi>{member.marketing_id}</bdi>
            </th>
            {cells(member)}
          </tr>
        ))}
      </tbody>
      {totals !== undefined && (
        <tfoot>
          <tr>
            <th scope="row">{arStats.teamTotal}</th>
            {cells(totals)}
          </tr>
        </tfoot>
      )}
    </ScrollingTable>
  );
}

function Total({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

// One day's column in the chart's units: a visits bar and a sign-ups bar side by side.
const column = 10;
const height = 60;

/**
 * Visits and sign-ups per day as bars, time running right to left as Arabic reads, the newest
 * day at the left. The SVG is a picture only: the same numbers are in the table under it, which
 * screen readers read instead.
 */
function DayChart({ days }: { days: MarketerStats['by_day'] }) {
  const highest = Math.max(1, ...days.map((day) => Math.max(day.visits, day.leads)));
  const bar = (value: number) => (value / highest) * height;
  const width = days.length * column;
  return (
    <figure className="chart">
      <figcaption>
        {arStats.statsChart}: <span className="key visits">{arStats.statVisits}</span>{' '}
        <span className="key sign-ups">{arStats.statSignUps}</span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" aria-hidden="true">
        {days.map((day, index) => {
          const x = width - (index + 1) * column;
          return (
            <g key={day.date}>
              <rect
                className="visits"
                x={x + 1}
                y={height - bar(day.visits)}
                width={4}
                height={bar(day.visits)}
              />
              <rect
                className="sign-ups"
                x={x + 5}
                y={height - bar(day.leads)}
                width={4}
                height={bar(day.leads)}
              />
            </g>
          );
        })}
      </svg>
      {/* A table is never narrower than its cells: hidden inside a box that is. */}
      <div className="visually-hidden">
        <table>
          <thead>
            <tr>
              <th scope="col">{arStats.statDate}</th>
              <th scope="col">{arStats.statVisits}</th>
              <th scope="col">{arStats.statSignUps}</th>
              <th scope="col">{arStats.statClients}</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{formatDate(day.date)}</th>
                <td>{numbers.format(day.visits)}</td>
                <td>{numbers.format(day.leads)}</td>
                <td>{numbers.format(day.clients)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
