import { describe, expect, it } from 'vitest';
import { buildNotes, parseNotes } from './notes';

describe('notes text of docs/product.md §4', () => {
  it.each([
    [
      'package and marketer',
      { packageName: 'premium_reco', marketingId: '42' },
      'مسجل في باقة توصيات - بريميوم - تم التسجيل من رابط مسوق خارجي',
      { packageKey: 'premium_reco', source: 'marketer_link' },
    ],
    [
      'marketer only',
      { marketingId: '42' },
      'تم التسجيل من رابط مسوق خارجي',
      { packageKey: null, source: 'marketer_link' },
    ],
    [
      'package only',
      { packageName: 'classic_portfolio' },
      'مسجل في باقة محفظة - كلاسيك - تم التسجيل من رابط تسجيل عام',
      { packageKey: 'classic_portfolio', source: 'general_link' },
    ],
    ['neither', {}, 'تم التسجيل من رابط تسجيل عام', { packageKey: null, source: 'general_link' }],
    [
      'an unknown package',
      { packageName: 'gold_plan' },
      'مسجل في باقة gold_plan - تم التسجيل من رابط تسجيل عام',
      { packageKey: 'gold_plan', source: 'general_link' },
    ],
  ])('%s', (_, route, notes, meaning) => {
    expect(buildNotes(route)).toBe(notes);
    expect(parseNotes(notes)).toEqual(meaning);
  });

  it('gives no meaning to notes it did not build', () => {
    expect(parseNotes('hello')).toEqual({ packageKey: null, source: null });
    expect(parseNotes('')).toEqual({ packageKey: null, source: null });
  });
});
