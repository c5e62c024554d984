import { arProgram } from '../domain/catalogue/program';

/**
 * A marketer as the programme's page shows them (docs/program.md): their name with their id
 * beside it, the id alone when the directory does not know them, and the general links by name.
 */
export function marketerName(marketingId: string | null, name: string | null): string {
  if (marketingId === null) return arProgram.general;
  return name === null ? marketingId : arProgram.named(name, marketingId);
}
