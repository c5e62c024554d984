import { describe, expect, it } from 'vitest';
import {
  sampleClient,
  sampleConfirmation,
  sampleEmptyWeek,
  sampleMailBrand,
  sampleMails,
  sampleMarketerWeek,
  sampleProgramWeek,
  sampleReview,
  sampleTeamLeaderWeek,
} from '../../testing/sample-mails';
import { arMail } from '../domain/catalogue/mail';
import { arNotifications } from '../domain/catalogue/notifications';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram, arReview } from '../domain/catalogue/program';
import { ar } from '../domain/catalogue/shared';
import { confirmationDays } from '../domain/notifications';
import { packageLabels } from '../domain/packages';
import { formatConversion, formatFullDate, formatNumber, formatRate } from '../domain/stats-format';
import {
  composeClient,
  composeConfirmation,
  composeMarketerWeek,
  composeProgramWeek,
  composeReview,
  type ComposedMail,
} from './compose';

const brand = sampleMailBrand;

// The addresses the HTML links to, in order (React Email writes href="…" as given, escaped).
const links = (html: string) =>
  [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((match) => match[1]?.replace(/&amp;/g, '&'));

// The HTML's visible words: its tags dropped, its entities of the samples decoded.
const words = (html: string) =>
  html
    .replace(/<style[\s\S]*?<\/style>|<title>[\s\S]*?<\/title>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');

describe.each(Object.entries(sampleMails))('the %s e-mail', (_, compose) => {
  let mail: ComposedMail;
  it('is right to left in Arabic, light and dark, sized for a phone', async () => {
    mail = await compose();
    expect(mail.html).toMatch(/<html (?=[^>]*\bdir="rtl")(?=[^>]*\blang="ar")[^>]*>/);
    expect(mail.html).toContain('<meta name="color-scheme" content="light dark"/>');
    expect(mail.html).toContain('<meta name="supported-color-schemes" content="light dark"/>');
    expect(mail.html).toContain('@media (prefers-color-scheme: dark)');
    expect(mail.html).toContain('<meta name="viewport" content="width=device-width');
    expect(mail.html).toContain('max-width:600px');
    // No text smaller than 14px.
    const sizes = [...mail.html.matchAll(/font-size:(\d+)px/g)].map((match) => Number(match[1]));
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(14);
  });

  it('names the provider, with its logo and licence line, in its subject, HTML and text', async () => {
    mail = await compose();
    expect(mail.subject).toMatch(new RegExp(`\\| ${brand.name}$`));
    expect(mail.html).toContain(`<title>${mail.subject}</title>`);
    expect(mail.html).toContain(`<img alt="" height="32" src="${brand.logoUrl}"`);
    expect(words(mail.html)).toContain(ar.licence(brand.licence ?? ''));
    expect(mail.text.split('\n')[0]).toBe(brand.name);
    expect(mail.text).toContain(ar.licence(brand.licence ?? ''));
  });

  it('writes every link out in its plain text, and nothing undefined or not a number', async () => {
    mail = await compose();
    const hrefs = links(mail.html);
    expect(hrefs.length).toBeGreaterThan(1);
    for (const href of hrefs) expect(mail.text).toContain(href);
    for (const part of [mail.subject, mail.text, words(mail.html)]) {
      expect(part).not.toMatch(/undefined|NaN|null|\[object/);
    }
  });
});

describe('the confirmation', () => {
  it('names what was asked and the address, its first link confirms, and it can be withdrawn', async () => {
    const mail = await composeConfirmation(sampleConfirmation, brand);
    expect(mail.subject).toBe(arMail.subject(arMail.confirmationSubject, brand.name));
    expect(links(mail.html)[0]).toBe(sampleConfirmation.confirmUrl);
    expect(links(mail.html)).toEqual([
      sampleConfirmation.confirmUrl,
      sampleConfirmation.unsubscribeUrl,
    ]);
    for (const part of [words(mail.html), mail.text]) {
      expect(part).toContain(arNotifications.choices.weekly_summary);
      expect(part).toContain(arNotifications.choices.client_alerts);
      expect(part).not.toContain(arNotifications.choices.review_digest);
      expect(part).toContain(arMail.confirmationAddress(sampleConfirmation.email));
      expect(part).toContain(arMail.confirmationButton);
      expect(part).toContain(arMail.confirmationExpiry(confirmationDays));
      expect(part).toContain(arMail.confirmationIgnore);
      expect(part).toContain(arMail.confirmationWithdraw);
      // No footer: the person has asked for nothing yet.
      expect(part).not.toContain(arMail.whyMarketer);
    }
    expect(mail.text).toContain(
      arMail.link(arMail.confirmationButton, sampleConfirmation.confirmUrl),
    );
  });
});

describe('the client note', () => {
  it('says the package and the day, links to the page and can be stopped', async () => {
    const mail = await composeClient(sampleClient, brand);
    expect(mail.subject).toBe(arMail.subject(arMail.clientSubject, brand.name));
    for (const part of [words(mail.html), mail.text]) {
      expect(part).toContain(arMail.line(ar.fieldPackage, packageLabels.premium_reco));
      expect(part).toContain(arMail.line(arStats.statDate, formatFullDate(sampleClient.day)));
      expect(part).toContain(arMail.whyMarketer);
    }
    expect(links(mail.html)).toEqual([sampleClient.pageUrl, sampleClient.unsubscribeUrl]);
    expect(mail.text).toContain(arMail.link(arMail.openMyLink, sampleClient.pageUrl));
    expect(mail.text).toContain(arMail.link(arMail.stop.client, sampleClient.unsubscribeUrl));
  });

  it('names the free trial when the client took no package', async () => {
    const mail = await composeClient({ ...sampleClient, packageKey: null }, brand);
    expect(mail.text).toContain(arMail.line(ar.fieldPackage, ar.headingFreeTrial));
    expect(words(mail.html)).toContain(arMail.line(ar.fieldPackage, ar.headingFreeTrial));
  });
});

describe("a marketer's week", () => {
  it('shows each number against the week before, with the change, and links to the page', async () => {
    const mail = await composeMarketerWeek(sampleMarketerWeek, brand);
    const { numbers, previous } = sampleMarketerWeek;
    expect(mail.subject).toBe(arMail.subject(arMail.marketerWeekSubject, brand.name));
    expect(mail.text).toContain(
      arMail.week(
        formatFullDate(sampleMarketerWeek.week.from),
        formatFullDate(sampleMarketerWeek.week.to),
      ),
    );
    expect(mail.text).toContain(
      arMail.numberLine(
        arStats.statVisits,
        formatNumber(numbers.visits),
        formatNumber(previous.visits),
        arProgram.changeUp(formatRate(13.6)),
      ),
    );
    expect(mail.text).toContain(
      arMail.numberLine(
        arStats.statSignUps,
        formatNumber(numbers.leads),
        formatNumber(previous.leads),
        arProgram.changeDown(formatRate(9.9)),
      ),
    );
    expect(mail.text).toContain(`${arStats.statConversion}: ${formatConversion(numbers)}`);
    const html = words(mail.html);
    for (const figure of [numbers.visits, previous.visits, numbers.clients, previous.clients]) {
      expect(html).toContain(formatNumber(figure));
    }
    expect(mail.html).toContain('<th scope="col"');
    expect(mail.html).toContain('<th scope="row"');
    expect(mail.html).toContain(`>${arMail.weekNumbers}</caption>`);
    expect(links(mail.html)).toEqual([
      sampleMarketerWeek.pageUrl,
      sampleMarketerWeek.unsubscribeUrl,
    ]);
    expect(mail.text).toContain(arMail.link(arMail.stop.weekly, sampleMarketerWeek.unsubscribeUrl));
    // A marketer without a team has no team's part, and a week with visits no "nothing" line.
    expect(mail.text).not.toContain(arStats.teamHeading);
    expect(mail.text).not.toContain(arMail.weekEmpty);
  });

  it("gives a team leader each member's line and the team's totals against the week before", async () => {
    const mail = await composeMarketerWeek(sampleTeamLeaderWeek, brand);
    const team = sampleTeamLeaderWeek.team;
    if (team === undefined) throw new Error('the sample has a team');
    const html = words(mail.html);
    for (const part of [html, mail.text]) {
      expect(part).toContain(arStats.teamHeading);
      expect(part).toContain(arMail.teamNumbers);
      for (const member of team.members.filter((member) => member.name !== null)) {
        expect(part).toContain(arStats.named(member.name ?? '', member.marketing_id));
      }
    }
    // A member the directory does not name, by their id.
    expect(mail.text).toContain(
      `- ${arMail.figures('2044', [
        arMail.figure(arStats.statSignUps, '0'),
        arMail.figure(arStats.statClients, '0'),
        arMail.figure(arStats.statConversion, arStats.statNone),
      ])}`,
    );
    expect(mail.text).toContain(
      arMail.numberLine(
        arStats.statClients,
        formatNumber(team.totals.clients),
        formatNumber(team.previous.clients),
        arProgram.changeUp(formatRate(30.8)),
      ),
    );
  });

  it('says so when the team has no members yet', async () => {
    const team = {
      members: [],
      totals: sampleEmptyWeek.numbers,
      previous: sampleEmptyWeek.numbers,
    };
    const mail = await composeMarketerWeek({ ...sampleMarketerWeek, team }, brand);
    expect(mail.text).toContain(arStats.teamEmpty);
    expect(words(mail.html)).toContain(arStats.teamEmpty);
  });

  it('is sent for a week with nothing in it, and says so', async () => {
    const mail = await composeMarketerWeek(sampleEmptyWeek, brand);
    expect(mail.text).toContain(arMail.weekEmpty);
    expect(words(mail.html)).toContain(arMail.weekEmpty);
    expect(mail.text).toContain(
      arMail.numberLine(arStats.statClients, '0', '0', arProgram.changeNoneSaid),
    );
    expect(mail.text).toContain(`${arStats.statConversion}: ${arStats.statNone}`);
  });
});

describe("the programme's week", () => {
  it('shows the totals and the five marketers and campaigns that brought the most clients', async () => {
    const mail = await composeProgramWeek(sampleProgramWeek, brand);
    expect(mail.subject).toBe(arMail.subject(arMail.programWeekSubject, brand.name));
    const html = words(mail.html);
    for (const part of [html, mail.text]) {
      expect(part).toContain(arMail.programNumbers);
      expect(part).toContain(arMail.topMarketers);
      expect(part).toContain(arMail.topCampaigns);
      expect(part).toContain(arMail.whyProgram);
    }
    expect(mail.text).toContain(
      `- ${arMail.figures(arStats.named(sampleProgramWeek.marketers[0]?.name ?? '', '1042'), [
        arMail.figure(arStats.statSignUps, '64'),
        arMail.figure(arStats.statClients, '12'),
      ])}`,
    );
    expect(mail.text).toContain(
      `- ${arMail.figures('2001', [
        arMail.figure(arStats.statSignUps, '31'),
        arMail.figure(arStats.statClients, '5'),
      ])}`,
    );
    // A campaign of no source or name is the programme page's "none".
    expect(mail.text).toContain(arMail.campaignName(arProgram.none, arProgram.none));
    expect(mail.text).toContain(arMail.campaignName('snapchat', 'ramadan'));
    expect(html).toContain(arProgram.none);
    expect(mail.text).toContain(
      arMail.numberLine(
        arStats.statVisits,
        formatNumber(15400),
        formatNumber(14100),
        arProgram.changeUp(formatRate(9.2)),
      ),
    );
    expect(links(mail.html)).toEqual([sampleProgramWeek.pageUrl, sampleProgramWeek.unsubscribeUrl]);
    expect(mail.text).not.toContain(arMail.noMarketerClients);
  });

  it('says so when no marketer and no campaign brought a client', async () => {
    const mail = await composeProgramWeek(
      { ...sampleProgramWeek, marketers: [], campaigns: [] },
      brand,
    );
    for (const part of [words(mail.html), mail.text]) {
      expect(part).toContain(arMail.noMarketerClients);
      expect(part).toContain(arMail.noCampaignClients);
    }
  });
});

describe('the review note', () => {
  it('says how many await review and how long the oldest has waited, with the list', async () => {
    const mail = await composeReview(sampleReview, brand);
    expect(mail.subject).toBe(arMail.subject(arReview.heading(14), brand.name));
    for (const part of [words(mail.html), mail.text]) {
      expect(part).toContain(arReview.heading(14));
      expect(part).toContain(arMail.reviewOldest(arMail.days(3, '3')));
      expect(part).toContain(arMail.whyProgram);
    }
    expect(links(mail.html)).toEqual([sampleReview.listUrl, sampleReview.unsubscribeUrl]);
    expect(mail.text).toContain(arMail.link(arMail.openReview, sampleReview.listUrl));
    expect(mail.text).toContain(arMail.link(arMail.stop.review, sampleReview.unsubscribeUrl));
  });

  it.each([
    [0, arMail.days(0, '0')],
    [1, arMail.days(1, '1')],
    [2, arMail.days(2, '2')],
    [11, arMail.days(11, '11')],
  ])('says an oldest of %i days in words', async (oldestDays, age) => {
    const mail = await composeReview({ ...sampleReview, oldestDays }, brand);
    expect(mail.text).toContain(arMail.reviewOldest(age));
  });
});

describe('the provider', () => {
  it('without a logo or licence, shows neither; its name is escaped in the HTML', async () => {
    const mail = await composeReview(sampleReview, { name: 'A & B <Co>' });
    expect(mail.html).not.toContain('<img');
    expect(mail.html).not.toContain(ar.licence('').slice(0, 10));
    expect(mail.html).toContain('A &amp; B &lt;Co&gt;');
    expect(mail.subject).toBe(arMail.subject(arReview.heading(14), 'A & B <Co>'));
  });
});
