import { arProgram } from '../domain/catalogue/program';
import { changeOf, changeTexts } from '../domain/period-change';

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
