import { useState } from 'react';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram } from '../domain/catalogue/program';
import { ar } from '../domain/catalogue/shared';
import { matchesSearch, searchForm } from '../domain/arabic-search';
import { programMarketerPage } from '../domain/links';
import {
  periodQuery,
  programStatsPath,
  type ProgramNumbers,
  type ProgramPeriod,
  type ProgramStats,
} from '../domain/program-stats';
import { LicenceLine } from './brand-header';
import { marketerName } from './marketer-name';
import { NotificationsSection } from './notifications-section';
import { DailyChart } from './daily-chart';
import { usePeriodStats } from './use-period-stats';
import { platformTokenKey } from './platform-token';
import { programCsv, programCsvName } from './program-csv';
import { firstPeriod, utcToday } from './program-period';
import { ProgramPeriodControls } from './program-period-controls';
import { ReviewList } from './review-list';
import { ProgramTotalsList } from './program-totals';
import { cell, numberColumns } from './program-columns';
import { CampaignsTable, PackagesTable, RankedTable } from './ranked-table';
import { ScrollingTable } from './scrolling-table';
import { anyMoreLeads, formatFullDate } from '../domain/stats-format';

const refusals: Record<number, string> = {
  401: arProgram.errorSignIn,
  403: ar.errorNotAuthorized,
  404: arProgram.off,
};

/**
 * The provider's page of the referral programme (docs/program.md), for the platform's token of
 * a programme role: the period's numbers, each day, and the marketers, campaigns and packages
 * ranked; then the flagged leads awaiting a decision on their credit; then the e-mails the role
 * asks for. Loaded with import() by this route only.
 */
export function ProgramScreen() {
  const storageKey = platformTokenKey();
  return (
    <main className="page">
      <div className="card program">
        <h1 id="heading">{arProgram.heading}</h1>
        {storageKey === null ? (
          <p className="message">{arProgram.off}</p>
        ) : (
          <Program storageKey={storageKey} />
        )}
      </div>
      {/* The e-mails the programme role asks for: nothing when the server sends none. */}
      {storageKey !== null && <NotificationsSection storageKey={storageKey} />}
      <LicenceLine />
    </main>
  );
}

function Program({ storageKey }: { storageKey: string }) {
  const today = utcToday();
  // The address's period, read once: from then on the page writes it.
  const [first] = useState(() => firstPeriod(window.location.search, today));
  const period = usePeriodStats<ProgramStats, ProgramPeriod>(
    programStatsPath,
    storageKey,
    first.period,
    periodQuery,
  );
  const { loaded } = period;
  // The review list comes under the numbers once their first answer is in: shown before it,
  // the list would be pushed down the page when they came (a layout shift).
  const [answered, setAnswered] = useState(false);
  if (loaded.kind !== 'loading' && !answered) setAnswered(true);
  // No token or a bad one (401), a role outside the programme's (403), or off (404).
  if (loaded.kind === 'refused') {
    return (
      <p className="message error" role="alert">
        {refusals[loaded.status]}
      </p>
    );
  }

  return (
    <>
      <div aria-busy={loaded.kind === 'loading'}>
        <ProgramPeriodControls
          period={period.period}
          choose={period.setPeriod}
          loaded={loaded}
          retry={period.retry}
          today={today}
          refused={first.refused}
        />
        {loaded.kind === 'stats' && <Report stats={loaded.stats} period={period.period} />}
      </div>
      {answered && <ReviewList storageKey={storageKey} />}
    </>
  );
}

function download(stats: ProgramStats) {
  const url = URL.createObjectURL(
    new Blob([programCsv(stats)], { type: 'text/csv;charset=utf-8' }),
  );
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = programCsvName(stats);
  // Firefox saves only from an anchor that is in the document.
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  // Later, not at once: a browser may still be reading the file when click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function Report({ stats, period }: { stats: ProgramStats; period: ProgramPeriod }) {
  const { totals, previous } = stats;
  const before = previous.totals;
  if (totals.visits === 0 && totals.leads === 0) {
    return <p className="message">{arStats.statsEmpty}</p>;
  }
  return (
    <>
      <ProgramTotalsList totals={totals} previous={before} />
      <p className="note">
        {arProgram.previousPeriod(
          arProgram.dates(formatFullDate(previous.from), formatFullDate(previous.to)),
        )}
      </p>
      <p className="note">{arStats.statsPeriodNote}</p>
      {anyMoreLeads([totals, ...stats.marketers, ...stats.campaigns, ...stats.packages]) && (
        <p className="note">{arStats.conversionMoreLeadsNote}</p>
      )}
      <div className="actions">
        <button type="button" className="secondary" onClick={() => download(stats)}>
          {arProgram.download}
        </button>
      </div>
      <DailyChart days={stats.by_day} />
      <Marketers marketers={stats.marketers} period={period} />
      <Teams stats={stats} period={period} />
      <CampaignsTable rows={stats.campaigns} />
      <PackagesTable rows={stats.packages} />
    </>
  );
}

type MarketerRow = ProgramStats['marketers'][number];

/**
 * The marketers ranked, by name with their id beside it, each a link to their own page on the
 * period shown, and a search box above them that finds a marketer by name or id however its
 * letters are typed (domain/arabic-search.ts).
 */
function Marketers({ marketers, period }: { marketers: MarketerRow[]; period: ProgramPeriod }) {
  const [typed, setTyped] = useState('');
  const found = marketers.filter((row) =>
    matchesSearch(typed, [row.name, row.marketing_id ?? arProgram.general]),
  );
  const searching = searchForm(typed) !== '';
  return (
    <>
      <div className="search">
        <label htmlFor="marketer-search">{arProgram.search}</label>
        <input
          id="marketer-search"
          type="search"
          value={typed}
          aria-describedby="marketer-search-found"
          onChange={(event) => setTyped(event.target.value)}
        />
      </div>
      <p role="status" id="marketer-search-found" className="note">
        {searching &&
          (found.length === 0 ? arProgram.searchNone : arProgram.searchFound(found.length))}
      </p>
      <RankedTable
        id="marketers"
        caption={arProgram.byMarketer}
        labels={[
          {
            heading: arStats.teamMember,
            text: (row) => row.name ?? row.marketing_id ?? '',
            cell: (row) => <MarketerCell row={row} period={period} />,
          },
        ]}
        rows={found}
      />
    </>
  );
}

/** A marketer by name, opening their page on the period shown; the general links by name. */
function MarketerCell({ row, period }: { row: MarketerRow; period: ProgramPeriod }) {
  if (row.marketing_id === null) return arProgram.general;
  return (
    <a href={`${programMarketerPage(row.marketing_id)}${periodQuery(period)}`}>
      {marketerName(row.marketing_id, row.name)}
    </a>
  );
}

/**
 * The teams (docs/program.md: the directory's team leaders), each leader by name with the
 * team's numbers, a button that shows or hides its members' rows under it; then, apart, the
 * general links and the marketers in no team. Nothing while the directory puts nobody in a team.
 */
function Teams({ stats, period }: { stats: ProgramStats; period: ProgramPeriod }) {
  if (stats.teams.length === 0) return null;
  const rows = new Map(stats.marketers.map((row) => [row.marketing_id, row]));
  const inTeams = new Set(stats.teams.flatMap((team) => team.members));
  const apart = stats.marketers.filter(
    (row) => row.marketing_id === null || !inTeams.has(row.marketing_id),
  );
  return (
    <ScrollingTable caption={arProgram.teams} id="teams-caption">
      <thead>
        <tr>
          <th scope="col">{arProgram.teamLeader}</th>
          {numberColumns.map(({ key, heading }) => (
            <th scope="col" key={key}>
              {heading}
            </th>
          ))}
        </tr>
      </thead>
      {stats.teams.map((team) => (
        <TeamRows
          key={team.team_leader_id}
          id={`team-${team.team_leader_id}`}
          label={marketerName(team.team_leader_id, team.name)}
          numbers={team}
          members={team.members.flatMap((id) => rows.get(id) ?? [])}
          period={period}
        />
      ))}
      {apart.length > 0 && (
        <TeamRows id="no-team" label={arProgram.noTeam} members={apart} period={period} />
      )}
    </ScrollingTable>
  );
}

/** A team's rows: its own, with the button that shows its members' rows under it. */
function TeamRows({
  id,
  label,
  numbers,
  members,
  period,
}: {
  id: string;
  label: string;
  numbers?: ProgramNumbers;
  members: MarketerRow[];
  period: ProgramPeriod;
}) {
  const [open, setOpen] = useState(false);
  const memberId = (place: number) => `${id}-member-${place}`;
  return (
    <tbody className="team">
      <tr>
        <th scope="rowgroup">
          <button
            type="button"
            className="disclosure"
            aria-expanded={open}
            aria-controls={members.map((_, place) => memberId(place)).join(' ')}
            onClick={() => setOpen(!open)}
          >
            {label} <span className="members-count">({arProgram.teamMembers(members.length)})</span>
          </button>
        </th>
        {numberColumns.map(({ key }) => (
          <td key={key}>{numbers === undefined ? '' : cell(numbers, key)}</td>
        ))}
      </tr>
      {members.map((row, place) => (
        <tr key={row.marketing_id ?? ''} id={memberId(place)} className="member" hidden={!open}>
          <th scope="row">
            <MarketerCell row={row} period={period} />
          </th>
          {numberColumns.map(({ key }) => (
            <td key={key}>{cell(row, key)}</td>
          ))}
        </tr>
      ))}
    </tbody>
  );
}
