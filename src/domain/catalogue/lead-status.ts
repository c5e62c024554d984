// What became of a lead (docs/marketer-kit.md): the labels `npm run lead -- import` accepts for
// each status, as a person with a spreadsheet would type them. The catalogue: shared.ts.
export const arLeadStatus = {
  new: 'جديد',
  contacted: 'تم التواصل',
  qualified: 'مؤهل',
  client: 'عميل',
  lost: 'لم يشترك',
} as const;
