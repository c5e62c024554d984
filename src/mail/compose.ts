import type {
  ClientMail,
  ConfirmationMail,
  MarketerWeekMail,
  ProgramWeekMail,
  ReviewMail,
} from '../domain/notifications';

/** The provider as every e-mail names it: as on the pages. */
export interface MailBrand {
  name: string;
  /** The logo's absolute address on PUBLIC_URL; none without BRAND_LOGO. */
  logoUrl?: string;
  licence?: string;
}

/** An e-mail's words: its subject, its plain-text part and its HTML. */
export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

// Interim plain text until the e-mails' HTML lands (issue 49).
const plain = (subject: string, lines: string[]): Promise<ComposedMail> =>
  Promise.resolve({ subject, text: lines.join('\n'), html: `<p>${lines.join('<br>')}</p>` });

export const composeConfirmation = (mail: ConfirmationMail, brand: MailBrand) =>
  plain(brand.name, [mail.confirmUrl]);
export const composeClient = (mail: ClientMail, brand: MailBrand) =>
  plain(brand.name, [mail.day, mail.pageUrl]);
export const composeMarketerWeek = (mail: MarketerWeekMail, brand: MailBrand) =>
  plain(brand.name, [mail.week.from, String(mail.numbers.leads)]);
export const composeProgramWeek = (mail: ProgramWeekMail, brand: MailBrand) =>
  plain(brand.name, [mail.week.from, String(mail.totals.leads)]);
export const composeReview = (mail: ReviewMail, brand: MailBrand) =>
  plain(brand.name, [String(mail.awaiting), mail.listUrl]);
