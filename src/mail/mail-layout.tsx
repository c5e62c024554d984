// @jsxRuntime automatic
// (tsx, which runs the server in development and the scripts, finds no tsconfig naming the
// runtime for this file: tsconfig.json holds only references.)
import { Body } from '@react-email/body';
import { Button } from '@react-email/button';
import { Container } from '@react-email/container';
import { Head } from '@react-email/head';
import { Heading } from '@react-email/heading';
import { Html } from '@react-email/html';
import { Img } from '@react-email/img';
import { Link } from '@react-email/link';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import type { ReactNode } from 'react';
import { arMail } from '../domain/catalogue/mail';
import { ar } from '../domain/catalogue/shared';
import type { MailBrand } from './mail-brand';
import { darkCss, styles } from './mail-style';
import type { WeekRow } from './week-numbers';

/**
 * Every e-mail's frame: right to left (on the <html>, and again on the card, as some webmail
 * keeps only the body's content), one column no wider than 600 px that narrows with the
 * screen, light and dark. The provider's logo (its alt empty: the name beside it says who it
 * is), its name and its licence line, as on the pages.
 */
export function MailLayout({
  brand,
  title,
  heading,
  footer,
  children,
}: {
  brand: MailBrand;
  title: string;
  heading: string;
  footer?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Html lang="ar" dir="rtl">
      <Head>
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        <title>{title}</title>
        <style>{darkCss}</style>
      </Head>
      <Body>
        <Section className="mail-page" style={styles.page} dir="rtl">
          <Container className="mail-card" style={styles.card} dir="rtl">
            {brand.logoUrl !== undefined && (
              <Img src={brand.logoUrl} alt="" height="32" style={styles.logo} />
            )}
            <Text style={styles.brand}>{brand.name}</Text>
            <Heading as="h1" style={styles.h1}>
              {heading}
            </Heading>
            {children}
            {footer}
            {brand.licence !== undefined && (
              <Text className="mail-muted" style={styles.muted}>
                {ar.licence(brand.licence)}
              </Text>
            )}
          </Container>
        </Section>
      </Body>
    </Html>
  );
}

export function Paragraph({ children, muted = false }: { children: ReactNode; muted?: boolean }) {
  return muted ? (
    <Text className="mail-muted" style={styles.muted}>
      {children}
    </Text>
  ) : (
    <Text style={styles.text}>{children}</Text>
  );
}

export function SectionHeading({ children }: { children: ReactNode }) {
  return (
    <Heading as="h2" style={styles.h2}>
      {children}
    </Heading>
  );
}

/** The e-mail's one main action, drawn as a button. */
export function MailButton({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Text style={styles.text}>
      <Button className="mail-button" href={href} style={styles.button}>
        {children}
      </Button>
    </Text>
  );
}

/** A link whose words say where it goes. */
export function MailLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link className="mail-link" href={href} style={styles.link}>
      {children}
    </Link>
  );
}

/** Why the e-mail comes, and the link that stops its kind (the same as List-Unsubscribe's). */
export function MailFooter({ why, stop, href }: { why: string; stop: string; href: string }) {
  return (
    <Section className="mail-footer" style={styles.footer}>
      <Text className="mail-muted" style={styles.muted}>
        {why}{' '}
        <Link className="mail-link" href={href} style={{ ...styles.link, fontSize: '14px' }}>
          {stop}
        </Link>
      </Text>
    </Section>
  );
}

/** A data table: its caption, a header row of column headers, then rows led by a row header. */
export function DataTable({
  caption,
  columns,
  rows,
}: {
  caption: string;
  columns: string[];
  rows: string[][];
}) {
  return (
    <table style={styles.table} dir="rtl">
      <caption style={styles.caption}>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col" style={styles.th}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map(([head, ...cells], index) => (
          <tr key={index}>
            <th scope="row" style={styles.th}>
              {head}
            </th>
            {cells.map((cell, column) => (
              <td key={column} style={styles.td}>
                {cell}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A week's totals against the week before, with the change (as drawn on the programme's page). */
export function WeekTable({ caption, rows }: { caption: string; rows: WeekRow[] }) {
  return (
    <DataTable
      caption={caption}
      columns={[
        arMail.columnNumber,
        arMail.columnThisWeek,
        arMail.columnPreviousWeek,
        arMail.columnChange,
      ]}
      // The arrow stays with its percentage (a narrow column would break between them).
      rows={rows.map((row) => [
        row.label,
        row.value,
        row.previous,
        row.change?.drawn.replace(' ', '\u00a0') ?? '',
      ])}
    />
  );
}
