import { describe, expect, it } from 'vitest';
import { buildNotes } from './notes';
import { buildPayload, registrationSchema, trapField } from './registration';

const valid = {
  name: 'سارة',
  email: '',
  phone: '966512345678',
  notes: 'تم التسجيل من رابط تسجيل عام',
};

describe('buildPayload', () => {
  const values = { name: 'سارة', email: 'sara@example.com', phone: '966512345678' };

  it('adds marketing_id only when the route names a marketer', () => {
    expect(buildPayload(values, { packageName: 'economy_reco', marketingId: '7' })).toEqual({
      ...values,
      notes: 'مسجل في باقة توصيات - اقتصادي - تم التسجيل من رابط مسوق خارجي',
      marketing_id: '7',
    });
    const general = buildPayload(values, {});
    expect(general).toEqual({ ...values, notes: 'تم التسجيل من رابط تسجيل عام' });
    expect(Object.keys(general)).toEqual(['name', 'email', 'phone', 'notes']);
  });
});

describe('registrationSchema', () => {
  it('accepts a valid registration and trims the name', () => {
    const result = registrationSchema.parse({ ...valid, name: '  سارة  ' });
    expect(result.name).toBe('سارة');
  });

  it('stores a numeric marketing_id as a string', () => {
    expect(registrationSchema.parse({ ...valid, marketing_id: 42 }).marketing_id).toBe('42');
  });

  it.each([
    ['a blank name', { name: '   ' }],
    ['a name over 100 characters', { name: 'a'.repeat(101) }],
    ['a bad phone', { phone: '0512345678' }],
    ['a bad e-mail', { email: 'not-an-email' }],
    ['notes over 500 characters', { notes: 'n'.repeat(501) }],
    ['a marketing_id with unsafe characters', { marketing_id: '<script>' }],
    ['a marketing_id over 64 characters', { marketing_id: 'm'.repeat(65) }],
    ['an unknown key', { admin: true }],
    ['a number for a name', { name: 5 }],
    ['a NUL in the name', { name: 'سا\u0000رة' }],
    ['a lone surrogate in the name', { name: 'سارة \ud83d' }],
    ['a control character in the notes', { notes: 'hello\u0007' }],
    ['notes the pages never write', { notes: 'hello' }],
    ['a bidi isolate in the name', { name: '\u2067سارة\u2069' }],
    ['a name with no letter or digit', { name: '\u200F\u200B' }],
    ['a long honeypot value', { [trapField]: 'x'.repeat(101) }],
  ])('refuses %s', (_, change) => {
    expect(registrationSchema.safeParse({ ...valid, ...change }).success).toBe(false);
  });

  it('keeps the direction marks Arabic keyboards type (LRM, RLM, ALM)', () => {
    const name = 'سارة\u200F \u200Eali\u061C';
    expect(registrationSchema.parse({ ...valid, name }).name).toBe(name);
  });

  it('accepts every notes text the pages write, a later package key included', () => {
    for (const route of [
      {},
      { marketingId: '7' },
      { packageName: 'premium_reco' },
      { packageName: 'gold_2', marketingId: '7' },
    ]) {
      expect(registrationSchema.safeParse({ ...valid, notes: buildNotes(route) }).success).toBe(
        true,
      );
    }
  });

  it('accepts an empty or absent e-mail and a name of exactly 100 characters', () => {
    expect(registrationSchema.safeParse({ ...valid, email: undefined }).success).toBe(true);
    expect(registrationSchema.safeParse({ ...valid, name: 'ن'.repeat(100) }).success).toBe(true);
  });
});
