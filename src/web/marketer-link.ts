import { z } from 'zod';
import { basename } from './routes';

// SPEC §6: the only roles that may see their registration link.
const storedUserSchema = z.object({
  role: z.enum(['marketing', 'team_leader_marketing']),
  id: z.union([z.string().trim().min(1), z.number().int().nonnegative()]).transform(String),
});

/**
 * The one place that decides who may see the link page: the raw localStorage 'user' value
 * gives the marketer's id, or null for no user, malformed JSON, another role or no id.
 */
export function linkMarketerId(storedUser: string | null): string | null {
  if (storedUser === null) return null;
  try {
    const user = storedUserSchema.safeParse(JSON.parse(storedUser));
    return user.success ? user.data.id : null;
  } catch {
    return null;
  }
}

/** SPEC §9: {origin}/register/marketer/{marketerId}. */
export function marketerLink(origin: string, marketerId: string): string {
  return `${origin}${basename}/marketer/${encodeURIComponent(marketerId)}`;
}
