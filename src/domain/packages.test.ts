import { describe, expect, it } from 'vitest';
import { packageKeyOf, packageKeys, packageLabel } from './packages';

const labelled = [
  ['classic_reco', 'توصيات - كلاسيك'],
  ['economy_reco', 'توصيات - اقتصادي'],
  ['premium_reco', 'توصيات - بريميوم'],
  ['classic_portfolio', 'محفظة - كلاسيك'],
  ['economy_portfolio', 'محفظة - اقتصادي'],
  ['premium_portfolio', 'محفظة - بريميوم'],
] as const;

describe('package labels', () => {
  it.each(labelled)('labels %s with its Arabic label', (key, label) => {
    expect(packageLabel(key)).toBe(label);
    expect(packageKeyOf(label)).toBe(key);
  });

  it('knows exactly the six packages of docs/product.md §9, in the order the picker shows', () => {
    expect(packageKeys).toHaveLength(6);
    expect(packageKeys).toEqual(labelled.map(([key]) => key));
  });

  it('shows an unknown key as it came, and inherited names are not packages', () => {
    expect(packageLabel('gold_plan')).toBe('gold_plan');
    expect(packageLabel('باقة خاصة')).toBe('باقة خاصة');
    expect(packageLabel('toString')).toBe('toString');
    expect(packageKeyOf('gold_plan')).toBe('gold_plan');
  });
});
