import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

// A store as a provider's grows: a million sign-ups over 90 days and their marketers, a tenth of
// the leads clients and a tenth contacted, as a CRM would have left them, and their visits rolled
// up per day and package as the server keeps them (the marketers' and the programme's
// benchmarks, and reliability/counting.ts).
export const signUpRows = 1_000_000;
const days = 90;

export const packages = ['', 'classic_reco', 'economy_reco', 'premium_reco'];
// Row i's status, the same SQL on both (i / marketers so that each marketer has every status).
const statusOf = (i: string, marketers: number) =>
  `case (${i} / ${marketers}) % 10 when 0 then 'client' when 1 then 'contacted' else 'new' end`;
const packageList = packages.map((key) => `'${key}'`).join(', ');

// Written by the database itself, which takes seconds for what would take minutes through a
// driver. Row i (its id a UUID ending in i, as the leads API takes ids) is marketer i mod
// `marketers`, spread evenly over the 90 days before now. The visits' rows are written a day
// after the other, as the server writes them: scattered a page a row, today's 8,000 cost
// PostgreSQL 15 ms to read instead of 5, five times an answer.
const sqliteSeed = (marketers: number, signUpRows: number, signUpDays: number) => [
  `with recursive n(i) as (select 0 union all select i + 1 from n where i < ${signUpRows - 1})
   insert into registrations (id, created_at, name, phone, notes, marketing_id, package_key, source,
     status)
   select printf('00000000-0000-4000-8000-%012d', i),
     strftime('%Y-%m-%dT%H:%M:%fZ', 'now', printf('-%d seconds', i * ${signUpDays} * 86400 / ${signUpRows})),
     'bench', printf('9665%08d', i), 'bench', cast(i % ${marketers} as text),
     nullif(json_extract(json_array(${packageList}), printf('$[%d]', i % ${packages.length})), ''),
     'marketer_link', ${statusOf('i', marketers)}
   from n`,
  `with recursive m(id) as (select 0 union all select id + 1 from m where id < ${marketers - 1}),
     d(day) as (select 0 union all select day + 1 from d where day < ${days - 1}),
     p(key) as (select value from json_each(json_array(${packageList})))
   insert into visit_totals (day, marketing_id, package_key, visits, visitors)
   select date('now', printf('-%d days', d.day)), cast(m.id as text), p.key, 12, 9
   from m, d, p order by d.day desc`,
];
const postgresSeed = (marketers: number, signUpRows: number, signUpDays: number) => [
  `insert into registrations (id, created_at, name, phone, notes, marketing_id, package_key, source,
     status)
   select '00000000-0000-4000-8000-' || lpad(i::text, 12, '0'),
     to_char(now() at time zone 'utc' - make_interval(secs => i * ${signUpDays} * 86400.0 / ${signUpRows}),
       'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
     'bench', '9665' || lpad(i::text, 8, '0'), 'bench', (i % ${marketers})::text,
     nullif((array[${packageList}])[i % ${packages.length} + 1], ''), 'marketer_link',
     ${statusOf('i', marketers)}
   from generate_series(0, ${signUpRows - 1}) as i`,
  `insert into visit_totals (day, marketing_id, package_key, visits, visitors)
   select to_char(current_date - d, 'YYYY-MM-DD'), m::text, p, 12, 9
   from generate_series(0, ${marketers - 1}) as m, generate_series(0, ${days - 1}) as d,
     unnest(array[${packageList}]) as p
   order by d desc`,
  // As autovacuum leaves a table of that size: its visibility map lets the covering index answer alone.
  'vacuum analyze',
  // As a database that grew over 90 days is: its writes long on disk, not a checkpoint of a
  // million rows just written running through the timed run.
  'checkpoint',
];

/**
 * Seeds the store the server has just migrated, through its own DATABASE_URL: a million
 * sign-ups (or `rows`) over 90 days (or `signUpDays`: the programme's longest range and its
 * previous period) and `marketers` marketers, with the visits of the last 90 days rolled up per
 * day.
 */
export async function seed(
  databaseUrl: string,
  marketers: number,
  rows = signUpRows,
  signUpDays = days,
): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new BetterSqlite3(databaseUrl.slice('sqlite:'.length));
    try {
      db.transaction(() =>
        sqliteSeed(marketers, rows, signUpDays).forEach((statement) => db.exec(statement)),
      )();
      db.exec('analyze');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const statement of postgresSeed(marketers, rows, signUpDays))
      await client.query(statement);
  } finally {
    await client.end();
  }
}
