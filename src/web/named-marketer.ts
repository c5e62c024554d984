import { arStats } from '../domain/catalogue/marketer-stats';

/**
 * A marketer by their name in the directory with their id beside it, the id alone when it
 * does not know them: on a team leader's link page and the programme's page alike. Its text is
 * arStats's, which both pages' chunks carry, so the link page loads none of the programme's.
 */
export function namedMarketer(marketingId: string, name: string | null): string {
  return name === null ? marketingId : arStats.named(name, marketingId);
}
