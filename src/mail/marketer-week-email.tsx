// @jsxRuntime automatic
// (tsx, which runs the server in development and the scripts, finds no tsconfig naming the
// runtime for this file: tsconfig.json holds only references.)
import { arMail } from '../domain/catalogue/mail';
import { arStats } from '../domain/catalogue/marketer-stats';
import type { MarketerWeekMail } from '../domain/notifications';
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
import {
  isEmptyWeek,
  marketerName,
  memberColumns,
  memberFigures,
  weekLine,
  weekRows,
} from './week-numbers';

export const marketerWeekSubject = (brand: MailBrand) =>
  arMail.subject(arMail.marketerWeekSubject, brand.name);

/** The team's members, each with their week's figures, in the directory's order. */
function memberLines(team: NonNullable<MarketerWeekMail['team']>) {
  return team.members.map((member) => ({
    who: marketerName(member.name, member.marketing_id),
    figures: memberFigures(member.numbers),
  }));
}

/**
 * A marketer's week against the week before, and a team leader's with each member's line and
 * the team's totals; a week with nothing in it says so. The numbers are the link page's.
 */
export function MarketerWeekEmail({ mail, brand }: { mail: MarketerWeekMail; brand: MailBrand }) {
  const team = mail.team;
  const members = team === undefined ? [] : memberLines(team);
  return (
    <MailLayout
      brand={brand}
      title={marketerWeekSubject(brand)}
      heading={arMail.marketerWeekHeading}
      footer={
        <MailFooter why={arMail.whyMarketer} stop={arMail.stop.weekly} href={mail.unsubscribeUrl} />
      }
    >
      <Paragraph muted>{weekLine(mail.week)}</Paragraph>
      {isEmptyWeek(mail.numbers) && <Paragraph>{arMail.weekEmpty}</Paragraph>}
      <WeekTable caption={arMail.weekNumbers} rows={weekRows(mail.numbers, mail.previous)} />
      {team !== undefined && (
        <>
          <SectionHeading>{arStats.teamHeading}</SectionHeading>
          {members.length === 0 ? (
            <Paragraph>{arStats.teamEmpty}</Paragraph>
          ) : (
            <DataTable
              caption={arMail.teamMembersWeek}
              columns={[arStats.teamMember, ...memberColumns]}
              rows={members.map(({ who, figures }) => [who, ...figures.map((f) => f.value)])}
            />
          )}
          <WeekTable caption={arMail.teamNumbers} rows={weekRows(team.totals, team.previous)} />
        </>
      )}
      <Paragraph>
        <MailLink href={mail.pageUrl}>{arMail.openMyLink}</MailLink>
      </Paragraph>
    </MailLayout>
  );
}

export function marketerWeekText(mail: MarketerWeekMail, brand: MailBrand) {
  const team = mail.team;
  return mailText(
    brand,
    arMail.marketerWeekHeading,
    [
      weekLine(mail.week),
      ...(isEmptyWeek(mail.numbers) ? [arMail.weekEmpty] : []),
      weekText(arMail.weekNumbers, weekRows(mail.numbers, mail.previous)),
      ...(team === undefined
        ? []
        : [
            team.members.length === 0
              ? `${arStats.teamHeading}\n${arStats.teamEmpty}`
              : `${arStats.teamHeading}\n${figuresText(arMail.teamMembersWeek, memberLines(team))}`,
            weekText(arMail.teamNumbers, weekRows(team.totals, team.previous)),
          ]),
      arMail.link(arMail.openMyLink, mail.pageUrl),
    ],
    footerText(arMail.whyMarketer, arMail.stop.weekly, mail.unsubscribeUrl),
  );
}
