import { arProgram } from './catalogue/program';
import { formatRate } from './stats-format';

/**
 * How a total moved from the previous period: up or down by a percentage of the previous figure,
 * the same, new (the previous period had none: no percentage of nothing), or none to tell (a
 * rate that either period has not: no visitors, no leads, or leads past the visitors). The
 * programme's page and the weekly e-mails say it alike.
 */
export type Change = { kind: 'up' | 'down'; percent: number } | { kind: 'same' | 'new' | 'none' };

export function changeOf(current: number | null, previous: number | null): Change {
  if (current === null || previous === null) return { kind: 'none' };
  if (current === previous) return { kind: 'same' };
  if (previous === 0) return { kind: 'new' };
  const percent = Math.round((Math.abs(current - previous) / previous) * 1000) / 10;
  return { kind: current > previous ? 'up' : 'down', percent };
}

/** The change as drawn, and as a screen reader says it (the arrow is not read out). */
export function changeTexts(change: Change): { drawn: string; said: string } | undefined {
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
