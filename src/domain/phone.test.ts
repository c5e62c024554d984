import { describe, expect, it } from 'vitest';
import { normalizePhone, phonePattern } from './phone';

describe('the phone rule of docs/product.md §5', () => {
  it('accepts 9665 and 8 digits', () => {
    expect(phonePattern.test('966512345678')).toBe(true);
  });

  it.each([
    ['11 digits', '96651234567'],
    ['13 digits', '9665123456789'],
    ['not 9665', '966412345678'],
    ['a local number', '0512345678'],
    ['letters', '9665123456ab'],
    ['a plus sign', '+966512345678'],
    ['Arabic digits before normalising', '٩٦٦٥١٢٣٤٥٦٧٨'],
    ['empty', ''],
  ])('refuses %s', (_, phone) => {
    expect(phonePattern.test(phone)).toBe(false);
  });
});

describe('normalizePhone', () => {
  it.each([
    ['Arabic-Indic digits', '٩٦٦٥١٢٣٤٥٦٧٨', '966512345678'],
    ['Persian digits', '۹۶۶۵۱۲۳۴۵۶۷۸', '966512345678'],
    ['spaces and dashes', '966 51-234 5678', '966512345678'],
    ['a local 05 number', '0512345678', '966512345678'],
    ['a local number in Arabic digits', '٠٥١٢٣٤٥٦٧٨', '966512345678'],
    ['an international prefix', '+966 51 234 5678', '966512345678'],
    ['a 00 prefix', '00966512345678', '966512345678'],
  ])('turns %s into the 9665 form', (_, raw, expected) => {
    const phone = normalizePhone(raw);
    expect(phone).toBe(expected);
    expect(phonePattern.test(phone)).toBe(true);
  });

  it('leaves a number being typed alone', () => {
    expect(normalizePhone('05')).toBe('05');
    expect(normalizePhone('٩٦٦')).toBe('966');
  });

  it('keeps letters, so the rule still refuses them', () => {
    expect(normalizePhone('9665abc')).toBe('9665abc');
  });
});
