import { useEffect, useState } from 'react';
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
import { DailyChart } from './daily-chart';
import { fetchWithToken } from './platform-token';
import { ScrollingTable } from './scrolling-table';
import { formatNumber, formatRate } from './stats-format';

type Loaded =
  | { kind: 'loading' }
  | { kind: 'stats'; stats: MarketerStats }
  | { kind: 'error' }
  /** The token is refused, or the feature is off: the section is not shown. */
  | { kind: 'hidden' };

async function fetchStats(
  storageKey: string,
  days: StatsPeriod,
  signal: AbortSignal,
): Promise<Loaded> {
  const response = await fetchWithToken(`${marketerStatsPath}?days=${days}`, storageKey, signal);
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

function Numbers({ stats }: { stats: MarketerStats }) {
  const { totals } = stats;
  if (totals.visits === 0 && totals.leads === 0) {
    return <p className="message">{arStats.statsEmpty}</p>;
  }
  return (
    <>
      <dl className="totals">
        <Total label={arStats.statVisits} value={formatNumber(totals.visits)} />
        <Total label={arStats.statUniqueVisitors} value={formatNumber(totals.unique_visitors)} />
        <Total label={arStats.statSignUps} value={formatNumber(totals.leads)} />
        <Total label={arStats.statConversion} value={formatRate(totals.conversion_percent)} />
        <Total label={arStats.statClients} value={formatNumber(totals.clients)} />
        <Total label={arStats.statClientRate} value={formatRate(totals.client_percent)} />
      </dl>
      <p className="note">{arStats.statsPeriodNote}</p>
      <DailyChart days={stats.by_day} />
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
              <td>{formatNumber(row.visits)}</td>
              <td>{formatNumber(row.unique_visitors)}</td>
              <td>{formatNumber(row.leads)}</td>
              <td>{formatNumber(row.clients)}</td>
            </tr>
          ))}
        </tbody>
      </ScrollingTable>
    </>
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
      <td>{formatNumber(row.visits)}</td>
      <td>{formatNumber(row.unique_visitors)}</td>
      <td>{formatNumber(row.leads)}</td>
      <td>{formatNumber(row.clients)}</td>
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
