import { arProgram } from '../domain/catalogue/program';
import { formatRate } from './stats-format';

/**
 * How a total moved from the previous period: up or down by a percentage of the previous figure,
 * the same, new (the previous period had none: no percentage of nothing), or none to tell (a
 * rate that either period has not: no visitors, no leads, or leads past the visitors).
 */
type Change = { kind: 'up' | 'down'; percent: number } | { kind: 'same' | 'new' | 'none' };

function changeOf(current: number | null, previous: number | null): Change {
  if (current === null || previous === null) return { kind: 'none' };
  if (current === previous) return { kind: 'same' };
  if (previous === 0) return { kind: 'new' };
  const percent = Math.round((Math.abs(current - previous) / previous) * 1000) / 10;
  return { kind: current > previous ? 'up' : 'down', percent };
}

/** The change as drawn, and as a screen reader says it (the arrow is not read out). */
function changeTexts(change: Change): { drawn: string; said: string } | undefined {
  switch (change.kind) {
    case 'up':
      return {
        drawn: `↑ ${formatRate(change.percent)}`,
        said: arProgram.changeUp(formatRate(change.percent)),
      };
    case 'down':
      return {
        drawn: `↓ ${formatRate(change.percent)}`,
        said: arProgram.changeDown(formatRate(change.percent)),
      };
    case 'same':
      return { drawn: arProgram.changeNone, said: arProgram.changeNoneSaid };
    case 'new':
      return { drawn: arProgram.changeNew, said: arProgram.changeNewSaid };
    case 'none':
      return undefined;
  }
}

/**
 * A total's comparison, under its figure in the totals' `<dl>`: the change from the previous
 * period, then the previous period's figure as shown (`shown`). No colour says good or bad: more
 * leads lost is up too.
 */
export function TotalChange({
  current,
  previous,
  shown,
}: {
  current: number | null;
  previous: number | null;
  shown: string;
}) {
  const texts = changeTexts(changeOf(current, previous));
  return (
    <dd className="change">
      {texts !== undefined && (
        <span className="moved">
          <span aria-hidden="true">{texts.drawn}</span>
          <span className="visually-hidden">{texts.said}</span>
        </span>
      )}
      <span className="before">{arProgram.previous(shown)}</span>
    </dd>
  );
}
