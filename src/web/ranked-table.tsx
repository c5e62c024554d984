import { Fragment, useRef, useState, type ReactNode } from 'react';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram } from '../domain/catalogue/program';
import { ar } from '../domain/catalogue/shared';
import { conversion } from '../domain/conversion';
import { packageLabel } from '../domain/packages';
import type { ProgramNumbers } from '../domain/program-stats';
import { cell, numberColumns } from './program-columns';
import { ScrollingTable } from './scrolling-table';

// The programme's tables (docs/program.md): its own page's and a marketer's.

/** A text column of a ranked table: what it shows, and the text it sorts by. */
export interface Label<Row> {
  heading: string;
  text: (row: Row) => string;
  cell: (row: Row) => ReactNode;
}

/**
 * A number column's value to sort by. A rate without a base is below every rate; a conversion
 * shown in words (more leads than visitors) is no rate either, yet above none.
 */
function sortValue(row: ProgramNumbers, key: keyof ProgramNumbers): number {
  if (key === 'conversion_percent') {
    const shown = conversion(row);
    return shown.kind === 'rate' ? shown.percent : shown.kind === 'more_leads' ? -0.5 : -1;
  }
  return row[key] ?? -1;
}

/** A column: a text one by its place, or a number's key. */
type SortKey = number | keyof ProgramNumbers;

/** The rows a table shows until "show all" is pressed. */
const shownAtFirst = 50;

const collator = new Intl.Collator('ar', { numeric: true });

function compare<Row extends ProgramNumbers>(
  labels: Label<Row>[],
  key: SortKey,
): (a: Row, b: Row) => number {
  if (typeof key === 'number') {
    const text = labels[key]!.text;
    return (a, b) => collator.compare(text(a), text(b));
  }
  return (a, b) => sortValue(a, key) - sortValue(b, key);
}

/**
 * Rows with the programme's numbers, most leads first as the server sends them, sorted by any
 * column from the buttons in its headings (numbers most first, texts from A; again reverses);
 * the first rows only until "show all". On a narrow phone the table scrolls sideways in its
 * own region, which the keyboard can reach.
 */
export function RankedTable<Row extends ProgramNumbers>({
  id,
  caption,
  labels,
  rows,
}: {
  id: string;
  caption: string;
  labels: Label<Row>[];
  rows: Row[];
}) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({
    key: 'leads',
    descending: true,
  });
  const [all, setAll] = useState(false);
  const region = useRef<HTMLDivElement>(null);
  if (rows.length === 0) return null;

  const order = compare(labels, sort.key);
  // A stable sort: equal rows keep the server's order. Each row keeps its place there as its key.
  const sorted = rows
    .map((row, place) => ({ row, place }))
    .sort((a, b) => (sort.descending ? order(b.row, a.row) : order(a.row, b.row)));
  const shown = all ? sorted : sorted.slice(0, shownAtFirst);

  function heading(key: SortKey, text: string) {
    const active = sort.key === key;
    return (
      <th scope="col" aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
        <button
          type="button"
          className="sort"
          onClick={() =>
            setSort({ key, descending: active ? !sort.descending : typeof key !== 'number' })
          }
        >
          {text}
        </button>
      </th>
    );
  }

  return (
    <>
      <ScrollingTable caption={caption} id={`${id}-caption`} ref={region}>
        <thead>
          <tr>
            {labels.map((label, place) => (
              <Fragment key={label.heading}>{heading(place, label.heading)}</Fragment>
            ))}
            {numberColumns.map(({ key, heading: text }) => (
              <Fragment key={key}>{heading(key, text)}</Fragment>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map(({ row, place: key }) => (
            <tr key={key}>
              {labels.map((label, place) =>
                place === 0 ? (
                  <th key={label.heading} scope="row">
                    {label.cell(row)}
                  </th>
                ) : (
                  <td key={label.heading} className="label">
                    {label.cell(row)}
                  </td>
                ),
              )}
              {numberColumns.map(({ key }) => (
                <td key={key}>{cell(row, key)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </ScrollingTable>
      {shown.length < sorted.length && (
        <button
          type="button"
          className="secondary show-all"
          onClick={() => {
            setAll(true);
            // The button goes with the rows it hid: the keyboard carries on in their table.
            region.current?.focus();
          }}
        >
          {arProgram.showAll(rows.length)}
        </button>
      )}
    </>
  );
}

/** The campaigns ranked, by source and campaign: "other" where folded, "none" where unnamed. */
export function CampaignsTable<
  Row extends ProgramNumbers & {
    utm_source: string | null;
    utm_campaign: string | null;
    other: boolean;
  },
>({ rows }: { rows: Row[] }) {
  return (
    <RankedTable
      id="campaigns"
      caption={arProgram.byCampaign}
      labels={[
        {
          heading: arProgram.source,
          text: (row) => row.utm_source ?? '',
          cell: (row) => (row.other ? arProgram.other : (row.utm_source ?? arProgram.none)),
        },
        {
          heading: arProgram.campaign,
          text: (row) => row.utm_campaign ?? '',
          cell: (row) => (row.other ? arProgram.other : (row.utm_campaign ?? arProgram.none)),
        },
      ]}
      rows={rows}
    />
  );
}

/** The packages ranked, by name, the free trial for none. */
export function PackagesTable<Row extends ProgramNumbers & { package_key: string | null }>({
  rows,
}: {
  rows: Row[];
}) {
  return (
    <RankedTable
      id="packages"
      caption={arStats.statsByPackage}
      labels={[
        {
          heading: ar.fieldPackage,
          text: (row) => row.package_key ?? '',
          cell: (row) =>
            row.package_key === null ? ar.headingFreeTrial : packageLabel(row.package_key),
        },
      ]}
      rows={rows}
    />
  );
}
