import { useState } from 'react';
import { arLeadStatus } from '../domain/catalogue/lead-status';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram } from '../domain/catalogue/program';
import { arProgramMarketer } from '../domain/catalogue/program-marketer';
import { ar } from '../domain/catalogue/shared';
import { leadStatuses } from '../domain/lead-status';
import { basePath, programPath } from '../domain/links';
import {
  programMarketerStatsPath,
  type MarketerLeads,
  type ProgramMarketerStats,
} from '../domain/program-marketer';
import { periodQuery, type ProgramPeriod } from '../domain/program-stats';
import { LicenceLine } from './brand-header';
import { DailyChart } from './daily-chart';
import { marketerName } from './marketer-name';
import { platformTokenKey } from './platform-token';
import { firstPeriod, utcToday } from './program-period';
import { ProgramPeriodControls } from './program-period-controls';
import { ProgramTotalsList } from './program-totals';
import { CampaignsTable, PackagesTable } from './ranked-table';
import { LeadFacts } from './review-list';
import { anyMoreLeads, formatFullDate, formatNumber } from '../domain/stats-format';
import { Total } from './stats-total';
import { usePeriodStats } from './use-period-stats';

const refusals: Record<number, string> = {
  401: arProgram.errorSignIn,
  403: ar.errorNotAuthorized,
  404: arProgram.off,
};

/**
 * One marketer's page on the programme (docs/program.md), opened from their row on the
 * programme's page, for the same roles: who they are and their team, the period's totals
 * against the previous period's, each day, their packages and campaigns, what became of their
 * leads, and their leads awaiting review and not credited, none with a prospect's data.
 */
export function ProgramMarketerScreen({ marketingId }: { marketingId: string }) {
  const storageKey = platformTokenKey();
  const today = utcToday();
  // The address's period, read once: from then on the page writes it.
  const [first] = useState(() => firstPeriod(window.location.search, today));
  return (
    <main className="page">
      <div className="card program">
        {storageKey === null ? (
          <>
            <h1 id="heading">{arProgramMarketer.heading(marketingId)}</h1>
            <p className="message">{arProgram.off}</p>
          </>
        ) : (
          <Marketer marketingId={marketingId} storageKey={storageKey} first={first} today={today} />
        )}
      </div>
      <LicenceLine />
    </main>
  );
}

function Marketer({
  marketingId,
  storageKey,
  first,
  today,
}: {
  marketingId: string;
  storageKey: string;
  first: ReturnType<typeof firstPeriod>;
  today: string;
}) {
  const period = usePeriodStats<ProgramMarketerStats, ProgramPeriod>(
    programMarketerStatsPath(marketingId),
    storageKey,
    first.period,
    periodQuery,
  );
  const { loaded } = period;
  const stats = loaded.kind === 'stats' ? loaded.stats : undefined;
  const back = (
    <p>
      <a href={`${basePath}${programPath}${periodQuery(period.period)}`}>
        {arProgramMarketer.back}
      </a>
    </p>
  );
  return (
    <>
      {back}
      <h1 id="heading">
        {arProgramMarketer.heading(marketerName(marketingId, stats?.name ?? null))}
      </h1>
      {loaded.kind === 'refused' ? (
        <p className="message error" role="alert">
          {refusals[loaded.status]}
        </p>
      ) : (
        <div aria-busy={loaded.kind === 'loading'}>
          <ProgramPeriodControls
            period={period.period}
            choose={period.setPeriod}
            loaded={loaded}
            retry={period.retry}
            today={today}
            refused={first.refused}
          />
          {stats !== undefined && <Report stats={stats} />}
        </div>
      )}
    </>
  );
}

function Report({ stats }: { stats: ProgramMarketerStats }) {
  const { totals, previous } = stats;
  return (
    <>
      {stats.known ? (
        <dl className="review-facts">
          <div>
            <dt>{arProgramMarketer.team}</dt>
            <dd>
              {stats.team_leader === null
                ? arProgram.noTeam
                : marketerName(stats.team_leader.marketing_id, stats.team_leader.name)}
            </dd>
          </div>
        </dl>
      ) : (
        <p className="message">{arProgramMarketer.unknown}</p>
      )}
      <ProgramTotalsList totals={totals} previous={previous.totals} />
      <p className="note">
        {arProgram.previousPeriod(
          arProgram.dates(formatFullDate(previous.from), formatFullDate(previous.to)),
        )}
      </p>
      <p className="note">{arStats.statsPeriodNote}</p>
      {anyMoreLeads([totals, ...stats.campaigns, ...stats.packages]) && (
        <p className="note">{arStats.conversionMoreLeadsNote}</p>
      )}
      <DailyChart days={stats.by_day} />
      <section aria-labelledby="outcomes-heading">
        <h2 id="outcomes-heading">{arProgramMarketer.outcomes}</h2>
        <dl className="totals">
          {leadStatuses.map((status) => (
            <Total
              key={status}
              label={arLeadStatus[status]}
              value={formatNumber(stats.outcomes[status])}
            />
          ))}
        </dl>
      </section>
      <PackagesTable rows={stats.packages} />
      <CampaignsTable rows={stats.campaigns} />
      <Leads
        id="awaiting"
        heading={arProgramMarketer.awaiting(stats.awaiting_review.count)}
        note={arProgramMarketer.awaitingNote}
        none={arProgramMarketer.awaitingNone}
        listed={stats.awaiting_review}
      />
      <Leads
        id="not-credited"
        heading={arProgramMarketer.notCredited(stats.not_credited.count)}
        none={arProgramMarketer.notCreditedNone}
        listed={stats.not_credited}
      />
    </>
  );
}

/** Some of the marketer's leads, each as the review list shows a lead, without its decisions. */
function Leads({
  id,
  heading,
  note,
  none,
  listed,
}: {
  id: string;
  heading: string;
  note?: string;
  none: string;
  listed: MarketerLeads;
}) {
  return (
    <section className="review" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{heading}</h2>
      {note !== undefined && <p className="note">{note}</p>}
      {listed.leads.length === 0 ? (
        <p className="message">{none}</p>
      ) : (
        <>
          {listed.leads.length < listed.count && (
            <p className="note">{arProgramMarketer.firstShown(listed.leads.length)}</p>
          )}
          <ol className="review-list">
            {listed.leads.map((lead) => (
              <li key={lead.id}>
                <article className="review-lead" aria-labelledby={`${id}-${lead.id}-heading`}>
                  <LeadFacts lead={lead} id={`${id}-${lead.id}`} />
                </article>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
