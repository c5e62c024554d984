import { describe, expect, it } from 'vitest';
import { trapField } from './form-fields';
import { buildNotes } from './notes';
import { buildPayload, registrationSchema, utmFromQuery } from './registration';

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

  it('adds the campaign parameters it is given', () => {
    expect(buildPayload(values, {}, { utm_source: 'snapchat' })).toEqual({
      ...values,
      notes: 'تم التسجيل من رابط تسجيل عام',
      utm_source: 'snapchat',
    });
  });
});

describe('utmFromQuery', () => {
  const query = (search: string) => utmFromQuery(new URLSearchParams(search));

  it('takes the five parameters that are present, and nothing else', () => {
    expect(
      query(
        'utm_source=snapchat&utm_medium=cpc&utm_campaign=ramadan&utm_term=%D8%A3%D8%B3%D9%87%D9%85&utm_content=video&utm_foo=x&ref=y',
      ),
    ).toEqual({
      utm_source: 'snapchat',
      utm_medium: 'cpc',
      utm_campaign: 'ramadan',
      utm_term: 'أسهم',
      utm_content: 'video',
    });
    expect(query('utm_campaign=ramadan')).toEqual({ utm_campaign: 'ramadan' });
    expect(query('')).toEqual({});
  });

  it('trims, cuts to 100 characters, and drops empty values', () => {
    expect(
      query(`utm_campaign=${'c'.repeat(300)}&utm_source=+x+&utm_medium=+++&utm_term=`),
    ).toEqual({
      utm_campaign: 'c'.repeat(100),
      utm_source: 'x',
    });
  });

  it('never cuts a character in half', () => {
    const campaign = `${'c'.repeat(99)}😀`;
    expect(query(`utm_campaign=${encodeURIComponent(campaign)}`)).toEqual({
      utm_campaign: 'c'.repeat(99),
    });
  });

  it.each([
    ['a control character', 'snap%07chat'],
    ['a NUL', 'snap%00chat'],
    ['a bidi override', 'snap%E2%80%AEchat'],
    ['a bidi isolate', '%E2%81%A6snapchat%E2%81%A9'],
  ])('drops a value holding %s, keeping the others', (_, source) => {
    expect(query(`utm_source=${source}&utm_campaign=ramadan`)).toEqual({ utm_campaign: 'ramadan' });
  });

  it('gives only what the schema accepts', () => {
    const utm = query(`utm_source=${'😀'.repeat(80)}&utm_medium=%D8%A5%D8%B9%D9%84%D8%A7%D9%86`);
    const valid = {
      name: 'سارة',
      phone: '966512345678',
      notes: buildNotes({}),
    };
    expect(registrationSchema.safeParse({ ...valid, ...utm }).success).toBe(true);
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
    ['a name of the Hangul filler alone', { name: '\u3164' }],
    ['a name of Hangul choseong and jungseong fillers', { name: '\u115F\u1160' }],
    ['a name of the half-width Hangul filler', { name: '\uFFA0\uFFA0' }],
    ['a long honeypot value', { [trapField]: 'x'.repeat(101) }],
    ['an empty utm_source', { utm_source: '' }],
    ['a blank utm_medium', { utm_medium: '   ' }],
    ['a utm_campaign over 100 characters', { utm_campaign: 'c'.repeat(101) }],
    ['a control character in utm_term', { utm_term: 'a\u0007b' }],
    ['a bidi override in utm_content', { utm_content: '\u202Eab' }],
    ['a number for utm_source', { utm_source: 5 }],
    ['an unknown utm_ field', { utm_foo: 'x' }],
  ])('refuses %s', (_, change) => {
    expect(registrationSchema.safeParse({ ...valid, ...change }).success).toBe(false);
  });

  it('accepts the five campaign parameters, each up to 100 characters, trimmed', () => {
    const utm = {
      utm_source: ' snapchat ',
      utm_medium: 'cpc',
      utm_campaign: 'c'.repeat(100),
      utm_term: 'أسهم',
      utm_content: 'video',
    };
    expect(registrationSchema.parse({ ...valid, ...utm })).toMatchObject({
      ...utm,
      utm_source: 'snapchat',
    });
  });

  it('accepts a Hangul name: only the fillers alone show nothing', () => {
    expect(registrationSchema.parse({ ...valid, name: '김민준' }).name).toBe('김민준');
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
