import { arMail } from '../domain/catalogue/mail';
import { ar } from '../domain/catalogue/shared';
import type { MailBrand } from './mail-brand';
import type { WeekRow } from './week-numbers';

// The plain-text part, written from the same catalogue texts as the HTML rather than converted
// from it: a table turned into text loses which figure is whose, and every link must be written
// out. Blocks are separated by a blank line; a block's lines by a line break.

/** The frame of every text part: the provider, the heading, the blocks, the footer, the licence. */
export function mailText(brand: MailBrand, heading: string, blocks: string[], footer?: string) {
  return [
    brand.name,
    heading,
    ...blocks,
    ...(footer === undefined ? [] : ['—', footer]),
    ...(brand.licence === undefined ? [] : [ar.licence(brand.licence)]),
  ].join('\n\n');
}

/** A week's table as lines: each total, the week before's and the change in words. */
export const weekText = (caption: string, rows: WeekRow[]) =>
  [
    caption,
    ...rows.map(
      (row) => `- ${arMail.numberLine(row.label, row.value, row.previous, row.change?.said)}`,
    ),
  ].join('\n');

/** A list's lines under its heading: who, then each figure after its label. */
export const figuresText = (
  heading: string,
  lines: { who: string; figures: { label: string; value: string }[] }[],
) =>
  [
    heading,
    ...lines.map(
      ({ who, figures }) =>
        `- ${arMail.figures(
          who,
          figures.map(({ label, value }) => arMail.figure(label, value)),
        )}`,
    ),
  ].join('\n');

/** Why the e-mail comes and the link that stops it, written out. */
export const footerText = (why: string, stop: string, url: string) =>
  `${why}\n${arMail.link(stop, url)}`;
