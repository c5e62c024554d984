/** docs/product.md §5 and §9: 9665 followed by 8 digits, 12 characters in all. */
export const phonePattern = /^9665\d{8}$/;
export const phoneMaxLength = 12;

const arabicIndicZero = 0x0660;
const persianZero = 0x06f0;

function toLatinDigits(text: string): string {
  return text.replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (digit) => {
    const code = digit.charCodeAt(0);
    return String(code - (code >= persianZero ? persianZero : arabicIndicZero));
  });
}

/**
 * What people type on Arabic keyboards or paste from contacts, made into the form the rule
 * expects: Arabic-Indic and Persian digits become 0-9, spaces, dashes and a leading + or 00
 * go, and a local 05XXXXXXXX number becomes 9665XXXXXXXX. The rule itself stays that of docs/product.md §5.
 */
export function normalizePhone(raw: string): string {
  const digits = toLatinDigits(raw)
    .replace(/[\s\-\u200e\u200f()]/g, '')
    .replace(/^(\+|00)/, '');
  return /^05\d{8}$/.test(digits) ? `966${digits.slice(1)}` : digits;
}
