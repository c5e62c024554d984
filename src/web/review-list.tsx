import { useEffect, useState } from 'react';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram, arReview } from '../domain/catalogue/program';
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
} from '../domain/lead-review';
import { packageLabel } from '../domain/packages';
import { fetchWithToken, postWithToken } from './platform-token';
import { LoadFailure } from './load-failure';
import { formatTime } from './stats-format';

type Loaded =
  { kind: 'loading' } | { kind: 'list'; list: List } | { kind: 'error'; status?: number };

/** A decision as a lead's record keeps it. */
type Decision = DecidedLead['reviews'][number];

/**
 * The flagged leads awaiting a decision on their credit (docs/flags.md), newest first, for a
 * programme role: each with its flags in words, and the two decisions. A lead decided here stays
 * in view with its decision recorded, and may be decided again; at the next load it is among
 * the leads decided last, each shown with every decision on it.
 */
export function ReviewList({ storageKey }: { storageKey: string }) {
  const [attempt, setAttempt] = useState(0);
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  // The awaiting leads decided on this page.
  const [decidedHere, setDecidedHere] = useState<ReadonlySet<string>>(new Set());

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

  const awaiting =
    loaded.kind === 'list'
      ? loaded.list.count - loaded.list.leads.filter((lead) => decidedHere.has(lead.id)).length
      : 0;
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
        {loaded.kind === 'list' && loaded.list.leads.length === 0 && (
          <p className="message">{arReview.empty}</p>
        )}
        {loaded.kind === 'list' && loaded.list.leads.length > 0 && (
          <ol className="review-list">
            {loaded.list.leads.map((lead) => (
              <Lead
                key={lead.id}
                lead={lead}
                reviews={[]}
                storageKey={storageKey}
                onDecided={() => setDecidedHere((all) => new Set(all).add(lead.id))}
              />
            ))}
          </ol>
        )}
      </section>
      {loaded.kind === 'list' && loaded.list.decided.length > 0 && (
        <section className="review" aria-labelledby="decided-heading">
          <h2 id="decided-heading">{arReview.decidedHeading}</h2>
          <ol className="review-list">
            {loaded.list.decided.map((lead) => (
              <Lead key={lead.id} lead={lead} reviews={lead.reviews} storageKey={storageKey} />
            ))}
          </ol>
        </section>
      )}
    </>
  );
}

const marketerOf = (marketingId: string | null) => marketingId ?? arProgram.general;

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
        <bdi>{marketerOf(flag.other.marketing_id)}</bdi>
      )}
    </li>
  );
}

type Saving =
  | { kind: 'idle' }
  | { kind: 'saving' }
  | { kind: 'saved'; review: Decision }
  | { kind: 'error'; status?: number };

function Lead({
  lead,
  reviews,
  storageKey,
  onDecided,
}: {
  lead: ReviewLead;
  /** The decisions on it so far, the latest first. */
  reviews: Decision[];
  storageKey: string;
  onDecided?: () => void;
}) {
  const [note, setNote] = useState('');
  const [saving, setSaving] = useState<Saving>({ kind: 'idle' });
  const [record, setRecord] = useState(reviews);
  const id = `lead-${lead.id}`;

  async function decide(credited: boolean) {
    setSaving({ kind: 'saving' });
    try {
      const response = await postWithToken(leadReviewPath(lead.id), storageKey, {
        credited,
        note,
      });
      if (!response.ok) return setSaving({ kind: 'error', status: response.status });
      const review = (await response.json()) as LeadReview;
      setRecord((earlier) => [review, ...earlier]);
      setSaving({ kind: 'saved', review });
      onDecided?.();
    } catch {
      // The note stays as typed: pressing again sends it again.
      setSaving({ kind: 'error' });
    }
  }

  return (
    <li>
      <article className="review-lead" aria-labelledby={`${id}-heading`}>
        <h3 id={`${id}-heading`}>
          {arReview.lead(formatTime(lead.created_at), marketerOf(lead.marketing_id))}
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
          <div className="actions">
            <button type="button" onClick={() => void decide(true)}>
              {arReview.credited}
            </button>
            <button type="button" className="secondary" onClick={() => void decide(false)}>
              {arReview.notCredited}
            </button>
          </div>
        </fieldset>
        <p className="message" role="status">
          {saving.kind === 'saving'
            ? arReview.saving
            : saving.kind === 'saved'
              ? arReview.recorded(described(saving.review))
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
