import { useState } from 'react';
import { arStats } from '../domain/catalogue/marketer-stats';
import { ar } from '../domain/catalogue/shared';
import {
  marketerStatsPath,
  type LinkNumbers,
  type MarketerStats,
  type StatsPeriod,
  type TeamMember,
} from '../domain/marketer-stats';
import { packageLabel } from '../domain/packages';
import { DailyChart } from './daily-chart';
import { namedMarketer } from './named-marketer';
import { PeriodControls } from './period-controls';
import { usePeriodStats } from './use-period-stats';
import { ScrollingTable } from './scrolling-table';
import { anyMoreLeads, formatNumber, formatRate } from '../domain/stats-format';
import { ConversionTotal, Total } from './stats-total';

/**
 * «نتائج رابطك»: the marketer's own numbers, from the server, for the token the platform left in
 * the browser. Loaded with import() by the link page only.
 */
export function MarketerStatsSection({ storageKey }: { storageKey: string }) {
  const period = usePeriodStats<MarketerStats, StatsPeriod>(
    marketerStatsPath,
    storageKey,
    30,
    (days) => `?days=${days}`,
  );
  const { loaded } = period;
  // Refused (no token, another role, the feature off): the section is not shown.
  if (loaded.kind === 'refused') return null;

  return (
    <section
      className="card stats"
      aria-labelledby="stats-heading"
      aria-busy={loaded.kind === 'loading'}
    >
      <h2 id="stats-heading">{arStats.heading}</h2>
      <PeriodControls
        days={period.period}
        setDays={period.setPeriod}
        loaded={loaded}
        retry={period.retry}
      />
      {loaded.kind === 'stats' && <Numbers stats={loaded.stats} />}
      {loaded.kind === 'stats' && loaded.stats.team !== undefined && (
        <Team members={loaded.stats.team} totals={loaded.stats.team_totals} />
      )}
    </section>
  );
}

function Numbers({ stats }: { stats: MarketerStats }) {
  const { totals } = stats;
  if (totals.visits === 0 && totals.leads === 0 && totals.not_credited === 0) {
    return <p className="message">{arStats.statsEmpty}</p>;
  }
  // Shown to a marketer whose leads were flagged or decided on, and to no other.
  const reviewed = totals.awaiting_review > 0 || totals.not_credited > 0;
  return (
    <>
      <dl className="totals">
        <Total label={arStats.statVisits} value={formatNumber(totals.visits)} />
        <Total label={arStats.statUniqueVisitors} value={formatNumber(totals.unique_visitors)} />
        <Total label={arStats.statSignUps} value={formatNumber(totals.leads)} />
        <ConversionTotal numbers={totals} />
        <Total label={arStats.statClients} value={formatNumber(totals.clients)} />
        <Total label={arStats.statClientRate} value={formatRate(totals.client_percent)} />
        {reviewed && (
          <>
            <Total
              label={arStats.statAwaitingReview}
              value={formatNumber(totals.awaiting_review)}
            />
            <Total label={arStats.statNotCredited} value={formatNumber(totals.not_credited)} />
          </>
        )}
      </dl>
      <p className="note">{arStats.statsPeriodNote}</p>
      {anyMoreLeads([totals]) && <p className="note">{arStats.conversionMoreLeadsNote}</p>}
      {reviewed && <p className="note">{arStats.statsReviewNote}</p>}
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
 * A team leader's members, by name with their id beside it, under the leader's own numbers: in
 * the order the platform lists them, or by clients, most first. On a narrow phone the table
 * scrolls sideways in a region that the keyboard can reach.
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
              <bdi>{namedMarketer(member.marketing_id, member.name)}</bdi>
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
