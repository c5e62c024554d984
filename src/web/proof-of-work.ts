import { proofOfWorkMeta } from '../domain/form-fields';
import { apiBaseUrl } from './env';

/** Whether the server asks for a solved challenge (its pages say so in a <meta>). */
export function proofOfWorkAsked(): boolean {
  return document.querySelector(`meta[name="${proofOfWorkMeta}"]`) !== null;
}

/**
 * Fetches an ALTCHA challenge and solves it: the solver is loaded only now, after the first
 * input, so the form's first paint never waits for it. Undefined when anything fails: the
 * server then answers with its Arabic error, which the form shows.
 */
export async function solveProofOfWork(): Promise<string | undefined> {
  try {
    const response = await fetch(`${apiBaseUrl}/api/altcha-challenge`);
    if (!response.ok) return undefined;
    const challenge: unknown = await response.json();
    const [{ solveChallenge }, { deriveKey }] = await Promise.all([
      import('altcha-lib'),
      import('altcha-lib/algorithms/web/pbkdf2'),
    ]);
    const solution = await solveChallenge({
      challenge: challenge as Parameters<typeof solveChallenge>[0]['challenge'],
      deriveKey,
    });
    return solution === null ? undefined : btoa(JSON.stringify({ challenge, solution }));
  } catch {
    return undefined;
  }
}
