import { arForm } from './catalogue/form';
import { packageKeyOf, packageKeyPattern, packageLabel } from './packages';

export type Source = 'marketer_link' | 'general_link';

export interface RouteAttribution {
  packageName?: string;
  marketingId?: string;
}

const sourceText: Record<Source, string> = {
  marketer_link: arForm.notesMarketerLink,
  general_link: arForm.notesGeneralLink,
};

/** The notes text of docs/product.md §4: the one place it is built. */
export function buildNotes({ packageName, marketingId }: RouteAttribution): string {
  const source = sourceText[marketingId === undefined ? 'general_link' : 'marketer_link'];
  return packageName === undefined
    ? source
    : `${arForm.notesPackagePrefix} ${packageLabel(packageName)} - ${source}`;
}

export interface NotesMeaning {
  packageKey: string | null;
  source: Source | null;
}

/** The inverse of buildNotes, for storage: which package and which kind of link. */
export function parseNotes(notes: string): NotesMeaning {
  for (const source of Object.keys(sourceText) as Source[]) {
    const text = sourceText[source];
    if (notes === text) return { packageKey: null, source };
    const prefix = `${arForm.notesPackagePrefix} `;
    const suffix = ` - ${text}`;
    if (
      notes.startsWith(prefix) &&
      notes.endsWith(suffix) &&
      notes.length > prefix.length + suffix.length
    ) {
      return { packageKey: packageKeyOf(notes.slice(prefix.length, -suffix.length)), source };
    }
  }
  return { packageKey: null, source: null };
}

/**
 * Whether the pages could have written these notes: one of the four shapes, naming a known
 * package or a key-shaped one. The server takes no other text, so nobody can put their own
 * words into the provider's leads.
 */
export function isPageNotes(notes: string): boolean {
  const { packageKey, source } = parseNotes(notes);
  return source !== null && (packageKey === null || packageKeyPattern.test(packageKey));
}
