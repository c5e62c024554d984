// @jsxRuntime automatic
// (tsx, which runs the server in development and the scripts, finds no tsconfig naming the
// runtime for this file: tsconfig.json holds only references.)
import { arMail } from '../domain/catalogue/mail';
import { ar } from '../domain/catalogue/shared';
import { arStats } from '../domain/catalogue/marketer-stats';
import type { ClientMail } from '../domain/notifications';
import { packageLabel } from '../domain/packages';
import { formatFullDate } from '../domain/stats-format';
import type { MailBrand } from './mail-brand';
import { MailFooter, MailLayout, MailLink, Paragraph } from './mail-layout';
import { footerText, mailText } from './mail-text';

export const clientSubject = (brand: MailBrand) => arMail.subject(arMail.clientSubject, brand.name);

/** The package and the day: nothing of the person who became a client. */
function facts(mail: ClientMail) {
  return [
    arMail.line(
      ar.fieldPackage,
      mail.packageKey === null ? ar.headingFreeTrial : packageLabel(mail.packageKey),
    ),
    arMail.line(arStats.statDate, formatFullDate(mail.day)),
  ];
}

/** A lead of the marketer's became a client: which package, which day, and their page. */
export function ClientEmail({ mail, brand }: { mail: ClientMail; brand: MailBrand }) {
  return (
    <MailLayout
      brand={brand}
      title={clientSubject(brand)}
      heading={arMail.clientHeading}
      footer={
        <MailFooter why={arMail.whyMarketer} stop={arMail.stop.client} href={mail.unsubscribeUrl} />
      }
    >
      <Paragraph>{arMail.clientIntro}</Paragraph>
      {facts(mail).map((line) => (
        <Paragraph key={line}>{line}</Paragraph>
      ))}
      <Paragraph>
        <MailLink href={mail.pageUrl}>{arMail.openMyLink}</MailLink>
      </Paragraph>
    </MailLayout>
  );
}

export const clientText = (mail: ClientMail, brand: MailBrand) =>
  mailText(
    brand,
    arMail.clientHeading,
    [arMail.clientIntro, facts(mail).join('\n'), arMail.link(arMail.openMyLink, mail.pageUrl)],
    footerText(arMail.whyMarketer, arMail.stop.client, mail.unsubscribeUrl),
  );
