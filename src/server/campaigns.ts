// How much of the campaign report one client can write (issue 27). A campaign (utm_source,
// utm_campaign) is whatever a link's query says, so anyone can make up new ones: past these
// limits a campaign counts as "other", its visits and leads still counted.

/**
 * Stands for the campaigns past a limit, in utm_source and utm_campaign alike. A campaign
 * value never holds a control character (utmFromQuery and the schema refuse them), so it never
 * meets a real one.
 */
export const otherCampaign = '\u0001other';

/** The campaigns one link (marketer and package) names on one UTC day; the rest are other. */
export const campaignsPerLinkDay = 20;

/** The campaigns one address (IPv6: one /48) names in a day's visits; the rest are other. */
export const campaignsPerAddressDay = 10;

/** The visitors one address counts on one link in a day: more browsers there are not counted. */
export const visitorsPerAddressLinkDay = 10;

/** The visits (link and visitor) one address counts in a day, over every link. */
export const visitsPerAddressDay = 100;

/**
 * Of the rows of one link and day (`link` gives its key), the campaigns past
 * campaignsPerLinkDay, as a leads count keeps them: those with the most counted keep their
 * names (ties by name, so that every count agrees), the rest become otherCampaign. No campaign
 * ('' and '') is never folded.
 */
export function foldCampaigns<
  Row extends { utm_source: string; utm_campaign: string; leads: number; repeats: number },
>(rows: Row[], link: (row: Row) => string): Row[] {
  const sizes = new Map<string, Map<string, number>>();
  const campaignOf = (row: Row) => JSON.stringify([row.utm_source, row.utm_campaign]);
  for (const row of rows) {
    if (row.utm_source === '' && row.utm_campaign === '') continue;
    const campaigns = sizes.get(link(row)) ?? new Map<string, number>();
    const campaign = campaignOf(row);
    campaigns.set(campaign, (campaigns.get(campaign) ?? 0) + row.leads + row.repeats);
    sizes.set(link(row), campaigns);
  }
  const kept = new Map<string, Set<string>>();
  for (const [key, campaigns] of sizes) {
    const ranked = [...campaigns].sort(
      ([a, sizeA], [b, sizeB]) => sizeB - sizeA || (a < b ? -1 : a > b ? 1 : 0),
    );
    kept.set(key, new Set(ranked.slice(0, campaignsPerLinkDay).map(([campaign]) => campaign)));
  }
  return rows.map((row) =>
    (row.utm_source === '' && row.utm_campaign === '') || kept.get(link(row))?.has(campaignOf(row))
      ? row
      : { ...row, utm_source: otherCampaign, utm_campaign: otherCampaign },
  );
}
