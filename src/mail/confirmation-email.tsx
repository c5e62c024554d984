// @jsxRuntime automatic
// (tsx, which runs the server in development and the scripts, finds no tsconfig naming the
// runtime for this file: tsconfig.json holds only references.)
import { arMail } from '../domain/catalogue/mail';
// The choices in the words the person ticked them in, on their page.
import { arNotifications } from '../domain/catalogue/notifications';
import { confirmationDays, type ConfirmationMail } from '../domain/notifications';
import type { MailBrand } from './mail-brand';
import { MailButton, MailLayout, MailLink, Paragraph } from './mail-layout';
import { styles } from './mail-style';
import { mailText } from './mail-text';

export const confirmationSubject = (brand: MailBrand) =>
  arMail.subject(arMail.confirmationSubject, brand.name);

/**
 * The one e-mail sent before an address is confirmed: what was asked, to which address, and
 * the confirmation as its first link (a page whose button confirms; docs/notifications.md).
 * The withdrawal comes last, after the words that ignoring it changes nothing.
 */
export function ConfirmationEmail({ mail, brand }: { mail: ConfirmationMail; brand: MailBrand }) {
  return (
    <MailLayout
      brand={brand}
      title={confirmationSubject(brand)}
      heading={arMail.confirmationHeading}
    >
      <Paragraph>{arMail.confirmationAsked}</Paragraph>
      <ul style={{ ...styles.text, paddingRight: '24px' }}>
        {mail.choices.map((choice) => (
          <li key={choice}>{arNotifications.choices[choice]}</li>
        ))}
      </ul>
      <Paragraph>{arMail.confirmationAddress(mail.email)}</Paragraph>
      <MailButton href={mail.confirmUrl}>{arMail.confirmationButton}</MailButton>
      <Paragraph muted>{arMail.confirmationExpiry(confirmationDays)}</Paragraph>
      <Paragraph muted>{arMail.confirmationIgnore}</Paragraph>
      <Paragraph muted>
        <MailLink href={mail.unsubscribeUrl}>{arMail.confirmationWithdraw}</MailLink>
      </Paragraph>
    </MailLayout>
  );
}

export const confirmationText = (mail: ConfirmationMail, brand: MailBrand) =>
  mailText(brand, arMail.confirmationHeading, [
    [
      arMail.confirmationAsked,
      ...mail.choices.map((choice) => `- ${arNotifications.choices[choice]}`),
    ].join('\n'),
    arMail.confirmationAddress(mail.email),
    arMail.link(arMail.confirmationButton, mail.confirmUrl),
    `${arMail.confirmationExpiry(confirmationDays)}\n${arMail.confirmationIgnore}`,
    arMail.link(arMail.confirmationWithdraw, mail.unsubscribeUrl),
  ]);
