// @jsxRuntime automatic
// (tsx, which runs the server in development and the scripts, finds no tsconfig naming the
// runtime for this file: tsconfig.json holds only references.)
import { arMail } from '../domain/catalogue/mail';
import { arReview } from '../domain/catalogue/program';
import type { ReviewMail } from '../domain/notifications';
import { formatNumber } from '../domain/stats-format';
import type { MailBrand } from './mail-brand';
import { MailFooter, MailLayout, MailLink, Paragraph } from './mail-layout';
import { footerText, mailText } from './mail-text';

// The review list's own heading, with the count: the subject and the e-mail's heading.
const heading = (mail: ReviewMail) => arReview.heading(mail.awaiting);

export const reviewSubject = (mail: ReviewMail, brand: MailBrand) =>
  arMail.subject(heading(mail), brand.name);

const oldest = (mail: ReviewMail) =>
  arMail.reviewOldest(arMail.days(mail.oldestDays, formatNumber(mail.oldestDays)));

/** The leads awaiting review: how many, since when the oldest waits, and the list. */
export function ReviewEmail({ mail, brand }: { mail: ReviewMail; brand: MailBrand }) {
  return (
    <MailLayout
      brand={brand}
      title={reviewSubject(mail, brand)}
      heading={heading(mail)}
      footer={
        <MailFooter why={arMail.whyProgram} stop={arMail.stop.review} href={mail.unsubscribeUrl} />
      }
    >
      <Paragraph>{arMail.reviewIntro}</Paragraph>
      <Paragraph>{oldest(mail)}</Paragraph>
      <Paragraph>
        <MailLink href={mail.listUrl}>{arMail.openReview}</MailLink>
      </Paragraph>
    </MailLayout>
  );
}

export const reviewText = (mail: ReviewMail, brand: MailBrand) =>
  mailText(
    brand,
    heading(mail),
    [arMail.reviewIntro, oldest(mail), arMail.link(arMail.openReview, mail.listUrl)],
    footerText(arMail.whyProgram, arMail.stop.review, mail.unsubscribeUrl),
  );
