import { render } from '@react-email/render';
import { createElement, type ReactElement } from 'react';
import type {
  ClientMail,
  ConfirmationMail,
  MarketerWeekMail,
  ProgramWeekMail,
  ReviewMail,
} from '../domain/notifications';
import { ClientEmail, clientSubject, clientText } from './client-email';
import { ConfirmationEmail, confirmationSubject, confirmationText } from './confirmation-email';
import type { MailBrand } from './mail-brand';
import { MarketerWeekEmail, marketerWeekSubject, marketerWeekText } from './marketer-week-email';
import { ProgramWeekEmail, programWeekSubject, programWeekText } from './program-week-email';
import { ReviewEmail, reviewSubject, reviewText } from './review-email';

// The server's one door to the e-mails (lint keeps src/mail beside the server, building on
// domain alone): each compose gives the subject, the plain-text part and the HTML of one
// e-mail, rendered by React Email from the components beside this file.
export type { MailBrand };

/** An e-mail's words: its subject, its plain-text part and its HTML. */
export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

async function compose(subject: string, email: ReactElement, text: string): Promise<ComposedMail> {
  return { subject, text, html: await render(email) };
}

export const composeConfirmation = (mail: ConfirmationMail, brand: MailBrand) =>
  compose(
    confirmationSubject(brand),
    createElement(ConfirmationEmail, { mail, brand }),
    confirmationText(mail, brand),
  );

export const composeClient = (mail: ClientMail, brand: MailBrand) =>
  compose(
    clientSubject(brand),
    createElement(ClientEmail, { mail, brand }),
    clientText(mail, brand),
  );

export const composeMarketerWeek = (mail: MarketerWeekMail, brand: MailBrand) =>
  compose(
    marketerWeekSubject(brand),
    createElement(MarketerWeekEmail, { mail, brand }),
    marketerWeekText(mail, brand),
  );

export const composeProgramWeek = (mail: ProgramWeekMail, brand: MailBrand) =>
  compose(
    programWeekSubject(brand),
    createElement(ProgramWeekEmail, { mail, brand }),
    programWeekText(mail, brand),
  );

export const composeReview = (mail: ReviewMail, brand: MailBrand) =>
  compose(
    reviewSubject(mail, brand),
    createElement(ReviewEmail, { mail, brand }),
    reviewText(mail, brand),
  );
