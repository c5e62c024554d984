import { useEffect, useState } from 'react';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arReview } from '../domain/catalogue/program';
import { ar } from '../domain/catalogue/shared';
import {
  leadReviewPath,
  reviewListPath,
  reviewNoteLength,
  type DecidedLead,
  type LeadReview,
  type ReviewFlag,
  type ReviewLead,
  type ReviewList as List,
  type ReviewsRecorded,
} from '../domain/lead-review';
import { packageLabel } from '../domain/packages';
import { fetchWithToken, postWithToken } from './platform-token';
import { LoadFailure } from './load-failure';
import { marketerName } from './marketer-name';
import { formatTime } from './stats-format';

type Loaded =
  { kind: 'loading' } | { kind: 'list'; list: List } | { kind: 'error'; status?: number };

/** A decision as a lead's record keeps it. */
type Decision = DecidedLead['reviews'][number];

/** Records one decision on each of `ids`: the decisions as recorded, or the refusal's status. */
type Decide = (
  ids: readonly string[],
  decision: { credited: boolean; note: string },
) => Promise<LeadReview[] | { status?: number }>;

/**
 * The queue of flagged leads awaiting a decision on their credit (docs/flags.md), oldest first,
 * a page at a time, for a programme role: each with its flags in words, and the two decisions,
 * for it alone or, on a burst, for the burst's leads listed. A lead decided here stays in view
 * with its decision recorded, and may be decided again; at the next load it is among the leads
 * decided last, each shown with every decision on it.
 */
export function ReviewList({ storageKey }: { storageKey: string }) {
  const [attempt, setAttempt] = useState(0);
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  // The next page: being fetched, failed, or none left (the last one came empty).
  const [more, setMore] = useState<'idle' | 'loading' | 'error' | 'end'>('idle');
  // The decisions made on this page, the latest first, by lead.
  const [recorded, setRecorded] = useState<ReadonlyMap<string, LeadReview[]>>(new Map());

  useEffect(() => {
    const controller = new AbortController();
    fetchWithToken(reviewListPath, storageKey, controller.signal)
      .then(async (response) => {
        if (!response.ok) return setLoaded({ kind: 'error', status: response.status });
        setLoaded({ kind: 'list', list: (await response.json()) as List });
      })
      .catch(() => {
        if (!controller.signal.aborted) setLoaded({ kind: 'error' });
      });
    return () => controller.abort();
  }, [storageKey, attempt]);

  async function nextPage(list: List) {
    setMore('loading');
    try {
      const last = list.leads[list.leads.length - 1]!;
      const response = await fetchWithToken(
        `${reviewListPath}?after=${encodeURIComponent(last.id)}`,
        storageKey,
      );
      if (!response.ok) return setMore('error');
      const page = (await response.json()) as List;
      setLoaded({
        kind: 'list',
        list: { ...list, count: page.count, leads: [...list.leads, ...page.leads] },
      });
      setMore(page.leads.length === 0 ? 'end' : 'idle');
    } catch {
      setMore('error');
    }
  }

  const decide: Decide = async (ids, decision) => {
    try {
      const [id] = ids;
      const response =
        ids.length === 1
          ? await postWithToken(leadReviewPath(id!), storageKey, decision)
          : await postWithToken(reviewListPath, storageKey, { ids, ...decision });
      if (!response.ok) return { status: response.status };
      const reviews =
        ids.length === 1
          ? [(await response.json()) as LeadReview]
          : ((await response.json()) as ReviewsRecorded).reviews;
      setRecorded((earlier) => {
        const all = new Map(earlier);
        for (const review of reviews) all.set(review.id, [review, ...(all.get(review.id) ?? [])]);
        return all;
      });
      return reviews;
    } catch {
      return {};
    }
  };

  const leads = loaded.kind === 'list' ? loaded.list.leads : [];
  const awaiting =
    loaded.kind === 'list'
      ? loaded.list.count - leads.filter((lead) => recorded.has(lead.id)).length
      : 0;
  // A burst's leads listed, by marketer: decided at once from any of them.
  const burstOf = (lead: ReviewLead) =>
    lead.flags.some((flag) => flag.flag === 'burst')
      ? leads
          .filter(
            (other) =>
              other.marketing_id === lead.marketing_id &&
              other.flags.some((flag) => flag.flag === 'burst'),
          )
          .map((other) => other.id)
      : [lead.id];
  return (
    <>
      <section
        className="review"
        aria-labelledby="review-heading"
        aria-busy={loaded.kind === 'loading'}
      >
        <h2 id="review-heading">{arReview.heading(awaiting)}</h2>
        <p className="note">{arReview.intro}</p>
        {loaded.kind === 'loading' && <p className="message">{arStats.statsLoading}</p>}
        {loaded.kind === 'error' && (
          <LoadFailure
            status={loaded.status}
            retry={() => {
              setLoaded({ kind: 'loading' });
              setAttempt((n) => n + 1);
            }}
          />
        )}
        {loaded.kind === 'list' && leads.length === 0 && (
          <p className="message">{arReview.empty}</p>
        )}
        {leads.length > 0 && (
          <ol className="review-list">
            {leads.map((lead) => (
              <Lead
                key={lead.id}
                lead={lead}
                record={recorded.get(lead.id) ?? []}
                burst={burstOf(lead)}
                decide={decide}
              />
            ))}
          </ol>
        )}
        {loaded.kind === 'list' && leads.length < loaded.list.count && more !== 'end' && (
          <div className="actions" aria-busy={more === 'loading'}>
            <button
              type="button"
              className="secondary"
              disabled={more === 'loading'}
              onClick={() => void nextPage(loaded.list)}
            >
              {arReview.more}
            </button>
            {more === 'error' && (
              <p className="message error" role="alert">
                {arReview.errorMore}
              </p>
            )}
          </div>
        )}
      </section>
      {loaded.kind === 'list' && loaded.list.decided.length > 0 && (
        <section className="review" aria-labelledby="decided-heading">
          <h2 id="decided-heading">{arReview.decidedHeading}</h2>
          <ol className="review-list">
            {loaded.list.decided.map((lead) => (
              <Lead
                key={lead.id}
                lead={lead}
                record={[...(recorded.get(lead.id) ?? []), ...lead.reviews]}
                burst={[lead.id]}
                decide={decide}
              />
            ))}
          </ol>
        </section>
      )}
    </>
  );
}

const described = (review: Decision) =>
  arReview.decided(
    review.credited ? arReview.credited : arReview.notCredited,
    review.reviewed_by,
    formatTime(review.reviewed_at),
  );

function Flag({ flag }: { flag: ReviewFlag }) {
  if (flag.flag !== 'contested') return <li>{arReview.flags[flag.flag]}</li>;
  return (
    <li>
      {arReview.flags.contested}، {arReview.contestedBy}{' '}
      {flag.other === null ? (
        arReview.contestedGone
      ) : (
        <bdi>{marketerName(flag.other.marketing_id, flag.other.name)}</bdi>
      )}
    </li>
  );
}

/**
 * What a list shows of a lead: when it came and through whose link, its package, the phone's
 * last digits and its flags in words; no prospect's name or e-mail (the review list's and a
 * marketer's page's lists). `id` names its headings.
 */
export function LeadFacts({ lead, id }: { lead: ReviewLead; id: string }) {
  return (
    <>
      <h3 id={`${id}-heading`}>
        {arReview.lead(formatTime(lead.created_at), marketerName(lead.marketing_id, lead.name))}
      </h3>
      <dl className="review-facts">
        <div>
          <dt>{ar.fieldPackage}</dt>
          <dd>
            {lead.package_key === null ? ar.headingFreeTrial : packageLabel(lead.package_key)}
          </dd>
        </div>
        <div>
          <dt>{arReview.phone}</dt>
          <dd>
            <bdi dir="ltr" aria-hidden="true">
              {'•'.repeat(9)}
              {lead.phone_end}
            </bdi>
            <span className="visually-hidden">{arReview.phoneEnding(lead.phone_end)}</span>
          </dd>
        </div>
      </dl>
      {lead.flags.length > 0 && (
        <>
          <h4 id={`${id}-reasons`}>{arReview.reasons}</h4>
          <ul aria-labelledby={`${id}-reasons`}>
            {lead.flags.map((flag) => (
              <Flag key={flag.flag} flag={flag} />
            ))}
          </ul>
        </>
      )}
    </>
  );
}

type Saving =
  | { kind: 'idle' }
  | { kind: 'saving' }
  | { kind: 'saved'; review: Decision; count: number }
  | { kind: 'error'; status?: number };

function Lead({
  lead,
  record,
  burst,
  decide,
}: {
  lead: ReviewLead;
  /** The decisions on it so far, the latest first. */
  record: Decision[];
  /** The burst's leads listed, itself included; itself alone when it has no burst flag. */
  burst: readonly string[];
  decide: Decide;
}) {
  const [note, setNote] = useState('');
  const [saving, setSaving] = useState<Saving>({ kind: 'idle' });
  const [wholeBurst, setWholeBurst] = useState(false);
  const id = `lead-${lead.id}`;

  async function send(credited: boolean) {
    setSaving({ kind: 'saving' });
    const reviews = await decide(wholeBurst ? burst : [lead.id], { credited, note });
    // Refused: the note stays as typed, and pressing again sends it again.
    if (!Array.isArray(reviews)) return setSaving({ kind: 'error', status: reviews.status });
    setSaving({ kind: 'saved', review: reviews[0]!, count: reviews.length });
  }

  return (
    <li>
      <article className="review-lead" aria-labelledby={`${id}-heading`}>
        <LeadFacts lead={lead} id={id} />
        {record.length > 0 && (
          <>
            <h4 id={`${id}-history`}>{arReview.history}</h4>
            <ol aria-labelledby={`${id}-history`}>
              {record.map((review, place) => (
                // Decisions are only ever added, at the top: the count from the bottom is stable.
                <li key={record.length - place}>
                  {described(review)}
                  {review.note !== '' && (
                    <>
                      {' — '}
                      {arReview.noteShown} <bdi>{review.note}</bdi>
                    </>
                  )}
                </li>
              ))}
            </ol>
          </>
        )}
        <fieldset disabled={saving.kind === 'saving'}>
          <legend>{arReview.decision}</legend>
          <label htmlFor={`${id}-note`}>{arReview.note}</label>
          <input
            id={`${id}-note`}
            type="text"
            maxLength={reviewNoteLength}
            value={note}
            onChange={(event) => setNote(event.target.value)}
          />
          {burst.length > 1 && (
            <label className="whole-burst">
              <input
                type="checkbox"
                checked={wholeBurst}
                onChange={(event) => setWholeBurst(event.target.checked)}
              />
              {arReview.wholeBurst(burst.length)}
            </label>
          )}
          <div className="actions">
            <button type="button" onClick={() => void send(true)}>
              {arReview.credited}
            </button>
            <button type="button" className="secondary" onClick={() => void send(false)}>
              {arReview.notCredited}
            </button>
          </div>
        </fieldset>
        <p className="message" role="status">
          {saving.kind === 'saving'
            ? arReview.saving
            : saving.kind === 'saved'
              ? saving.count > 1
                ? arReview.recordedMany(saving.count, described(saving.review))
                : arReview.recorded(described(saving.review))
              : ''}
        </p>
        {saving.kind === 'error' && (
          <p className="message error" role="alert">
            {saving.status === 429 ? ar.errorTooManyRequests : arReview.errorSave}
          </p>
        )}
      </article>
    </li>
  );
}
