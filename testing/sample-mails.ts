import type {
  ClientMail,
  ConfirmationMail,
  MarketerWeekMail,
  ProgramWeekMail,
  ReviewMail,
  WeekNumbers,
} from '../src/domain/notifications';
import {
  composeClient,
  composeConfirmation,
  composeMarketerWeek,
  composeProgramWeek,
  composeReview,
  type ComposedMail,
  type MailBrand,
} from '../src/mail/compose';
import { sampleBrand } from './sample-brand';

// One made-up e-mail of each kind, with the provider of sample-brand.ts: for the e-mails' tests,
// the browser tests that show them (e2e/mail.spec.ts) and the screenshots. No real person.

const origin = 'https://provider.example/register';

export const sampleMailBrand: MailBrand = {
  name: sampleBrand.name,
  logoUrl: `${origin}/brand-logo.svg`,
  licence: sampleBrand.licence,
};

const week = (
  visits: number,
  unique_visitors: number,
  leads: number,
  clients: number,
): WeekNumbers => ({
  visits,
  unique_visitors,
  leads,
  clients,
  conversion_percent:
    unique_visitors === 0 ? null : Math.round((leads / unique_visitors) * 1000) / 10,
});

const nothing = week(0, 0, 0, 0);

const stop = (kind: string) => `${origin}/notifications/stop/${kind}/sample-unsubscribe-token`;

export const sampleConfirmation: ConfirmationMail = {
  email: 'sara.marketer@example.com',
  choices: ['weekly_summary', 'client_alerts'],
  confirmUrl: `${origin}/notifications/confirm/sample-confirm-token`,
  unsubscribeUrl: stop('confirmation'),
};

export const sampleClient: ClientMail = {
  packageKey: 'premium_reco',
  day: '2026-11-26',
  pageUrl: `${origin}/my-registration-link`,
  unsubscribeUrl: stop('client'),
};

export const sampleMarketerWeek: MarketerWeekMail = {
  marketing_id: '1042',
  name: 'سارة القحطاني',
  week: { from: '2026-11-22', to: '2026-11-28' },
  numbers: week(1250, 980, 64, 12),
  previous: week(1100, 870, 71, 9),
  pageUrl: `${origin}/my-registration-link`,
  unsubscribeUrl: stop('weekly'),
};

/** A team leader's week: their own numbers, their members' and the team's totals. */
export const sampleTeamLeaderWeek: MarketerWeekMail = {
  ...sampleMarketerWeek,
  marketing_id: '1007',
  name: 'خالد العتيبي',
  numbers: week(420, 300, 18, 4),
  previous: week(390, 310, 15, 4),
  team: {
    members: [
      { marketing_id: '1042', name: 'سارة القحطاني', numbers: week(1250, 980, 64, 12) },
      { marketing_id: '1043', name: 'فهد الدوسري', numbers: week(310, 250, 9, 1) },
      { marketing_id: '2044', name: null, numbers: nothing },
    ],
    totals: week(1980, 1530, 91, 17),
    previous: week(1800, 1400, 95, 13),
  },
};

/** A week with nothing in it: sent too, and it says so. */
export const sampleEmptyWeek: MarketerWeekMail = {
  ...sampleMarketerWeek,
  numbers: nothing,
  previous: week(40, 31, 2, 0),
};

export const sampleProgramWeek: ProgramWeekMail = {
  week: { from: '2026-11-22', to: '2026-11-28' },
  totals: week(15400, 11200, 640, 96),
  previous: week(14100, 10900, 610, 101),
  marketers: [
    { marketing_id: '1042', name: 'سارة القحطاني', clients: 12, leads: 64 },
    { marketing_id: '1077', name: 'نورة الشهري', clients: 9, leads: 40 },
    { marketing_id: '1043', name: 'فهد الدوسري', clients: 7, leads: 52 },
    { marketing_id: '2001', name: null, clients: 5, leads: 31 },
    { marketing_id: '2015', name: 'عبدالله الحربي', clients: 4, leads: 18 },
  ],
  campaigns: [
    { utm_source: 'snapchat', utm_campaign: 'ramadan', clients: 21, leads: 120 },
    { utm_source: 'whatsapp', utm_campaign: 'group-nov', clients: 14, leads: 88 },
    { utm_source: '', utm_campaign: '', clients: 11, leads: 140 },
    { utm_source: 'ads', utm_campaign: '', clients: 6, leads: 35 },
    { utm_source: 'x', utm_campaign: 'launch', clients: 3, leads: 17 },
  ],
  pageUrl: `${origin}/program`,
  unsubscribeUrl: stop('weekly'),
};

export const sampleReview: ReviewMail = {
  awaiting: 14,
  oldestDays: 3,
  listUrl: `${origin}/program#review-heading`,
  unsubscribeUrl: stop('review'),
};

/** Each sample e-mail composed as the server composes it, by the name its tests and pictures use. */
export const sampleMails = {
  confirmation: () => composeConfirmation(sampleConfirmation, sampleMailBrand),
  client: () => composeClient(sampleClient, sampleMailBrand),
  'marketer-week': () => composeMarketerWeek(sampleMarketerWeek, sampleMailBrand),
  'team-leader-week': () => composeMarketerWeek(sampleTeamLeaderWeek, sampleMailBrand),
  'empty-week': () => composeMarketerWeek(sampleEmptyWeek, sampleMailBrand),
  'program-week': () => composeProgramWeek(sampleProgramWeek, sampleMailBrand),
  review: () => composeReview(sampleReview, sampleMailBrand),
} satisfies Record<string, () => Promise<ComposedMail>>;
