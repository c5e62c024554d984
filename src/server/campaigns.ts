// How much of the campaign report one client can write (issue 27). A campaign (utm_source,
// utm_campaign) is whatever a link's query says, so anyone can make up new ones: past these
// limits a campaign counts as "other", its visits and leads still counted.

/**
 * Stands for the campaigns past a limit, in utm_source and utm_campaign alike. A campaign
 * value never holds a control character (utmFromQuery and the schema refuse them), so it never
 * meets a real one.
 */
export const otherCampaign = '\u0001other';

/**
 * The campaigns one link (marketer and package) names on one UTC day, for its visits and its
 * leads alike (counts.ts); the rest are other.
 */
export const campaignsPerLinkDay = 20;

/** The campaigns one address (IPv6: one /48) names in a day's visits; the rest are other. */
export const campaignsPerAddressDay = 10;

/** The visitors one address counts on one link in a day: more browsers there are not counted. */
export const visitorsPerAddressLinkDay = 10;

/** The visits (link and visitor) one address counts in a day, over every link. */
export const visitsPerAddressDay = 100;
