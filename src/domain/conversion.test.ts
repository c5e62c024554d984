import { describe, expect, it } from 'vitest';
import { conversion, percent } from './conversion';

describe('percent', () => {
  it('is a part per hundred, one decimal, and null without a whole', () => {
    expect(percent(1, 3)).toBe(33.3);
    expect(percent(2, 3)).toBe(66.7);
    expect(percent(0, 5)).toBe(0);
    expect(percent(3, 0)).toBeNull();
  });
});

describe('conversion', () => {
  it('is the leads per hundred unique visitors while the visitors are as many or more', () => {
    expect(conversion({ leads: 1, unique_visitors: 8 })).toEqual({ kind: 'rate', percent: 12.5 });
    expect(conversion({ leads: 0, unique_visitors: 4 })).toEqual({ kind: 'rate', percent: 0 });
    expect(conversion({ leads: 4, unique_visitors: 4 })).toEqual({ kind: 'rate', percent: 100 });
  });

  it('is never a figure above 100 %: more leads than counted visitors is said as such', () => {
    // One counted visit and two leads: 200 % until now.
    expect(conversion({ leads: 2, unique_visitors: 1 })).toEqual({ kind: 'more_leads' });
    // One lead more in ten thousand rounds to 100.0 %, and is still more leads than visitors.
    expect(conversion({ leads: 10_001, unique_visitors: 10_000 })).toEqual({
      kind: 'more_leads',
    });
    // Leads without a counted visit at all (sent through the API).
    expect(conversion({ leads: 3, unique_visitors: 0 })).toEqual({ kind: 'more_leads' });
  });

  it('is none for a group with neither visitors nor leads', () => {
    expect(conversion({ leads: 0, unique_visitors: 0 })).toEqual({ kind: 'none' });
  });
});
