/**
 * Finding a marketer by name or id however the name is typed (docs/program.md): Arabic writes
 * the same name several ways (أحمد or احمد, فاطمة or فاطمه, مصطفى or مصطفي), and an id may be
 * typed in Arabic digits. Both sides are reduced to one form before they are compared.
 */

const forms: [RegExp, string][] = [
  // Hamza above or below, madda, wasla: a bare alef.
  [/[أإآٱ]/g, 'ا'],
  [/ة/g, 'ه'],
  [/ى/g, 'ي'],
  // Short vowels, shadda, sukun, the dagger alef and tatweel: not typed in a search.
  [/[\u064B-\u0652\u0670\u0640]/g, ''],
];

/** A text as a search compares it: one form of alef, taa marbuta and yaa, Latin digits, lower case. */
export function searchForm(text: string): string {
  let form = text.normalize('NFC');
  for (const [pattern, replacement] of forms) form = form.replace(pattern, replacement);
  form = form.replace(/[٠-٩]/g, (digit) => String(digit.charCodeAt(0) - 0x0660));
  return form.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Whether any of `texts` holds what was typed (nothing typed: all do). */
export function matchesSearch(typed: string, texts: readonly (string | null)[]): boolean {
  const wanted = searchForm(typed);
  return wanted === '' || texts.some((text) => text !== null && searchForm(text).includes(wanted));
}
