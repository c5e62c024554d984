// @jsxRuntime automatic
// (tsx, which runs the server in development and the scripts, finds no tsconfig naming the
// runtime for this file: tsconfig.json holds only references.)
import { arMail } from '../domain/catalogue/mail';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram } from '../domain/catalogue/program';
import type { ProgramWeekMail } from '../domain/notifications';
import { formatNumber } from '../domain/stats-format';
import type { MailBrand } from './mail-brand';
import {
  DataTable,
  MailFooter,
  MailLayout,
  MailLink,
  Paragraph,
  SectionHeading,
  WeekTable,
} from './mail-layout';
import { figuresText, footerText, mailText, weekText } from './mail-text';
import { isEmptyWeek, marketerName, weekLine, weekRows } from './week-numbers';

export const programWeekSubject = (brand: MailBrand) =>
  arMail.subject(arMail.programWeekSubject, brand.name);

// A campaign's source or name as the programme's page shows it: '' is none.
const campaignPart = (value: string) => (value === '' ? arProgram.none : value);

const leadsAndClients = (row: { leads: number; clients: number }) => [
  { label: arStats.statSignUps, value: formatNumber(row.leads) },
  { label: arStats.statClients, value: formatNumber(row.clients) },
];

function topLines(mail: ProgramWeekMail) {
  return {
    marketers: mail.marketers.map((marketer) => ({
      who: marketerName(marketer.name, marketer.marketing_id),
      figures: leadsAndClients(marketer),
    })),
    campaigns: mail.campaigns.map((campaign) => ({
      source: campaignPart(campaign.utm_source),
      campaign: campaignPart(campaign.utm_campaign),
      figures: leadsAndClients(campaign),
    })),
  };
}

/**
 * The programme's week: the totals against the week before, and the five marketers and five
 * campaigns that brought the most clients (or a line that none did). The numbers are the
 * programme's page's.
 */
export function ProgramWeekEmail({ mail, brand }: { mail: ProgramWeekMail; brand: MailBrand }) {
  const { marketers, campaigns } = topLines(mail);
  return (
    <MailLayout
      brand={brand}
      title={programWeekSubject(brand)}
      heading={arMail.programWeekHeading}
      footer={
        <MailFooter why={arMail.whyProgram} stop={arMail.stop.weekly} href={mail.unsubscribeUrl} />
      }
    >
      <Paragraph muted>{weekLine(mail.week)}</Paragraph>
      {isEmptyWeek(mail.totals) && <Paragraph>{arMail.weekEmpty}</Paragraph>}
      <WeekTable caption={arMail.programNumbers} rows={weekRows(mail.totals, mail.previous)} />
      <SectionHeading>{arMail.topMarketers}</SectionHeading>
      {marketers.length === 0 ? (
        <Paragraph>{arMail.noMarketerClients}</Paragraph>
      ) : (
        <DataTable
          caption={arProgram.byMarketer}
          columns={[arStats.teamMember, arStats.statSignUps, arStats.statClients]}
          rows={marketers.map(({ who, figures }) => [who, ...figures.map((f) => f.value)])}
        />
      )}
      <SectionHeading>{arMail.topCampaigns}</SectionHeading>
      {campaigns.length === 0 ? (
        <Paragraph>{arMail.noCampaignClients}</Paragraph>
      ) : (
        <DataTable
          caption={arProgram.byCampaign}
          columns={[
            arMail.campaignName(arProgram.source, arProgram.campaign),
            arStats.statSignUps,
            arStats.statClients,
          ]}
          rows={campaigns.map(({ source, campaign, figures }) => [
            arMail.campaignName(source, campaign),
            ...figures.map((f) => f.value),
          ])}
        />
      )}
      <Paragraph>
        <MailLink href={mail.pageUrl}>{arMail.openProgram}</MailLink>
      </Paragraph>
    </MailLayout>
  );
}

export function programWeekText(mail: ProgramWeekMail, brand: MailBrand) {
  const { marketers, campaigns } = topLines(mail);
  return mailText(
    brand,
    arMail.programWeekHeading,
    [
      weekLine(mail.week),
      ...(isEmptyWeek(mail.totals) ? [arMail.weekEmpty] : []),
      weekText(arMail.programNumbers, weekRows(mail.totals, mail.previous)),
      marketers.length === 0
        ? `${arMail.topMarketers}\n${arMail.noMarketerClients}`
        : figuresText(arMail.topMarketers, marketers),
      campaigns.length === 0
        ? `${arMail.topCampaigns}\n${arMail.noCampaignClients}`
        : figuresText(
            arMail.topCampaigns,
            campaigns.map(({ source, campaign, figures }) => ({
              who: arMail.campaignName(source, campaign),
              figures,
            })),
          ),
      arMail.link(arMail.openProgram, mail.pageUrl),
    ],
    footerText(arMail.whyProgram, arMail.stop.weekly, mail.unsubscribeUrl),
  );
}
