import { arProgram } from '../domain/catalogue/program';
import { namedMarketer } from './named-marketer';

/**
 * A marketer as the programme's page shows them (docs/program.md): by name as `namedMarketer`
 * writes them, and the general links, which are no marketer's, by their own name.
 */
export function marketerName(marketingId: string | null, name: string | null): string {
  return marketingId === null ? arProgram.general : namedMarketer(marketingId, name);
}
