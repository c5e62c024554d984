import { describe, expect, it } from 'vitest';
import { addDays, daysOf, longestRange, periodDays, rangeRefusal } from './program-stats';

describe('a range of days', () => {
  const today = '2026-11-26';

  it('may be one day, or up to a year, a leap one included, ending today at the latest', () => {
    expect(rangeRefusal(today, today, today)).toBeUndefined();
    expect(rangeRefusal('2025-11-26', today, today)).toBeUndefined();
    expect(daysOf('2025-11-26', today)).toBe(longestRange);
    // 2024 has a 29th of February: 366 days from the 1st of March 2023.
    expect(rangeRefusal('2023-03-01', '2024-02-29', today)).toBeUndefined();
    expect(daysOf('2023-03-01', '2024-02-29')).toBe(366);
  });

  it('is refused with its reason: no day of the calendar, the wrong way round, too long, after today', () => {
    expect(rangeRefusal('2026-02-29', '2026-03-01', today)).toBe('dates');
    expect(rangeRefusal('2026-11-1', '2026-11-20', today)).toBe('dates');
    expect(rangeRefusal('', '2026-11-20', today)).toBe('dates');
    expect(rangeRefusal('2026-11-20', '2026-11-19', today)).toBe('order');
    expect(rangeRefusal('2025-11-25', today, today)).toBe('length');
    expect(rangeRefusal(today, addDays(today, 1), today)).toBe('future');
  });

  it('is what a period of the last days counts, today its last', () => {
    expect(periodDays({ days: 1 }, today)).toEqual({ from: today, to: today });
    expect(periodDays({ days: 90 }, today)).toEqual({ from: '2026-08-29', to: today });
    expect(periodDays({ from: '2026-01-01', to: '2026-01-31' }, today)).toEqual({
      from: '2026-01-01',
      to: '2026-01-31',
    });
  });
});
